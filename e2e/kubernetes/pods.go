package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// podSpec is a bare pod of a scenario.
type podSpec struct {
	ns, name      string
	cpu, mem      string
	labels, annot map[string]string
	priorityClass string
	nodeSelector  map[string]string
	never         bool // restartPolicy Never
	// antiAffinity: required pod anti-affinity on the hostname with pods
	// of these labels; hostPort: a container port taken on the node
	antiAffinity map[string]string
	hostPort     int32
}

func (c *cluster) createPod(ctx context.Context, s podSpec) error {
	tmpl := podTemplate(s.labels, shimScheduler, resource.MustParse(s.cpu), resource.MustParse(s.mem))
	tmpl.Spec.PriorityClassName = s.priorityClass
	tmpl.Spec.NodeSelector = s.nodeSelector
	if s.never {
		tmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
	}
	if s.antiAffinity != nil {
		tmpl.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: s.antiAffinity},
				TopologyKey:   "kubernetes.io/hostname",
			}},
		}}
	}
	if s.hostPort != 0 {
		tmpl.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: s.hostPort, HostPort: s.hostPort, Protocol: corev1.ProtocolTCP}}
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: s.name, Namespace: s.ns, Labels: s.labels, Annotations: s.annot}, Spec: tmpl.Spec}
	_, err := c.kube.CoreV1().Pods(s.ns).Create(ctx, p, metav1.CreateOptions{})
	return err
}

func (c *cluster) pods(ctx context.Context, ns, selector string) ([]corev1.Pod, error) {
	l, err := c.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	sort.Slice(l.Items, func(i, j int) bool { return l.Items[i].Name < l.Items[j].Name })
	return l.Items, nil
}

// boundNames splits pods into the bound and the unbound, by name.
func boundNames(pods []corev1.Pod) (bound, pending []string) {
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		if p.Spec.NodeName != "" {
			bound = append(bound, p.Name)
		} else {
			pending = append(pending, p.Name)
		}
	}
	return bound, pending
}

// waitBoundCount waits until exactly want pods of ns (matching selector)
// are bound and stays there for hold.
func (c *cluster) waitBoundCount(ctx context.Context, ns, selector string, want int, timeout, hold time.Duration) ([]string, []string, error) {
	var bound, pending []string
	var stableSince time.Time
	err := waitFor(ctx, fmt.Sprintf("%d pods bound in %s", want, ns), timeout, 500*time.Millisecond, func() (bool, error) {
		pods, err := c.pods(ctx, ns, selector)
		if err != nil {
			return false, err
		}
		b, p := boundNames(pods)
		if len(b) > want {
			return false, fmt.Errorf("%d pods bound, more than %d: %v", len(b), want, b)
		}
		if len(b) != len(bound) {
			stableSince = time.Time{}
		}
		bound, pending = b, p
		if len(b) < want {
			return false, fmt.Errorf("%d bound", len(b))
		}
		if stableSince.IsZero() {
			stableSince = time.Now()
		}
		return time.Since(stableSince) >= hold, nil
	})
	if err == nil && len(bound) > want {
		err = fmt.Errorf("%d pods bound, more than %d", len(bound), want)
	}
	return bound, pending, err
}

// podEvents returns "reason: message" of the events about a pod, as
// `kubectl describe pod` lists them.
func (c *cluster) podEvents(ctx context.Context, ns, name string) ([]string, error) {
	l, err := c.kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{
		FieldSelector: fields.Set{"involvedObject.kind": "Pod", "involvedObject.name": name}.AsSelector().String(),
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range l.Items {
		out = append(out, e.Reason+": "+e.Message)
	}
	return out, nil
}

func anyContains(list []string, subs ...string) bool {
	for _, s := range list {
		for _, sub := range subs {
			if strings.Contains(strings.ToLower(s), strings.ToLower(sub)) {
				return true
			}
		}
	}
	return false
}

func (c *cluster) deleteNamespaceNow(ctx context.Context, ns string) error {
	zero := int64(0)
	if err := c.kube.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil {
		return err
	}
	return waitFor(ctx, "pods of "+ns+" gone", time.Minute, 500*time.Millisecond, func() (bool, error) {
		l, err := c.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		return len(l.Items) == 0, fmt.Errorf("%d left", len(l.Items))
	})
}
