package main

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// gangCompleteScenario: a gang of 3 whose one real pod ends while two
// placeholders are left unused. The application goes Completing; when its
// 30 s timer fires the placeholders are released, and the shim deletes
// their pods while the application still exists, before it hears
// Completed (it forgets a Completed application at once, and with Completed
// first the placeholder pods stayed: docs/compatibility.md).
func gangCompleteScenario(ctx context.Context, c *cluster) error {
	const ns, app = "e2e-gangdone", "gang-done"
	if err := c.ensureNamespace(ctx, ns); err != nil {
		return err
	}
	// a placeholder timeout far past the scenario: the Completing timer,
	// not the gang's timeout, must take the placeholders away
	if err := c.createPod(ctx, gangPod(ns, app, "real-0", 3, "200m", 600, "Soft")); err != nil {
		return err
	}
	err := waitFor(ctx, "the real pod bound in a placeholder's place, 2 placeholders left", 2*time.Minute, 500*time.Millisecond, func() (bool, error) {
		left, real, err := c.gangState(ctx, ns, app)
		if err != nil {
			return false, err
		}
		return real["real-0"] != "" && left == 2, fmt.Errorf("real pod on %q, %d placeholders", real["real-0"], left)
	})
	if err != nil {
		return err
	}
	// the real pod succeeds (it stays, so the placeholders it owns are not
	// garbage-collected with it)
	p, err := c.kube.CoreV1().Pods(ns).Get(ctx, "real-0", metav1.GetOptions{})
	if err != nil {
		return err
	}
	now := metav1.Now()
	p.Status.Phase = corev1.PodSucceeded
	p.Status.Conditions = nil
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", Image: p.Spec.Containers[0].Image,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", FinishedAt: now}}}}
	if _, err := c.kube.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		return err
	}
	start := time.Now()
	err = waitFor(ctx, "the unused placeholders' pods deleted after the Completing timer", 2*time.Minute, time.Second, func() (bool, error) {
		left, _, err := c.gangState(ctx, ns, app)
		if err != nil {
			return false, err
		}
		return left == 0, fmt.Errorf("%d placeholder pods left", left)
	})
	if err != nil {
		return err
	}
	took := time.Since(start)
	if took < 20*time.Second {
		return fmt.Errorf("the placeholders went %s after the real pod ended, before the Completing timer (30 s): not the path this scenario checks", took.Round(time.Second))
	}
	logf("   the real pod succeeded; the 2 unused placeholders' pods were deleted %s later (the Completing timer is 30 s)", took.Round(time.Second))
	err = waitFor(ctx, "Paddock's application completed", time.Minute, time.Second, func() (bool, error) {
		var a struct {
			State string `json:"applicationState"`
		}
		if err := c.rest(ctx, "/ws/v1/partition/default/application/"+app, &a); err != nil {
			return false, err
		}
		return a.State == "Completed", fmt.Errorf("state %q", a.State)
	})
	if err != nil {
		return err
	}
	return c.deleteNamespaceNow(ctx, ns)
}

// cordonScenario: a node is cordoned (the shim drains it in Paddock); a
// DaemonSet pod for it is still bound there, as kube-scheduler does (the
// pod tolerates the cordon), and a regular pod pinned to it by a node
// selector is not.
func cordonScenario(ctx context.Context, c *cluster) error {
	const ns = "e2e-cordon"
	nodes, err := c.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "type=kwok"})
	if err != nil {
		return err
	}
	if len(nodes.Items) < 2 {
		return fmt.Errorf("%d KWOK nodes, want 2", len(nodes.Items))
	}
	node := nodes.Items[len(nodes.Items)-2].Name
	if err := c.ensureNamespace(ctx, ns); err != nil {
		return err
	}
	cordon := func(on bool) error {
		patch := fmt.Sprintf(`{"spec":{"unschedulable":%v}}`, on)
		_, err := c.kube.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		return err
	}
	if err := cordon(true); err != nil {
		return err
	}
	defer func() { _ = cordon(false) }()
	err = waitFor(ctx, "Paddock's node "+node+" drained", time.Minute, 500*time.Millisecond, func() (bool, error) {
		var n restNode
		if err := c.rest(ctx, "/ws/v1/partition/default/node/"+node, &n); err != nil {
			return false, err
		}
		return !n.Schedulable, fmt.Errorf("schedulable %v", n.Schedulable)
	})
	if err != nil {
		return err
	}
	labels := map[string]string{"e2e": "cordon", "applicationId": "cordon-ds"}
	tmpl := podTemplate(labels, shimScheduler, resource.MustParse("100m"), resource.MustParse("64Mi"))
	tmpl.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": node}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: ns},
		Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl},
	}
	if _, err := c.kube.AppsV1().DaemonSets(ns).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
		return err
	}
	if err := c.createPod(ctx, podSpec{ns: ns, name: "pinned", cpu: "100m", mem: "64Mi",
		nodeSelector: map[string]string{"kubernetes.io/hostname": node},
		labels:       map[string]string{"e2e": "cordon-pinned", "applicationId": "cordon-pinned"}}); err != nil {
		return err
	}
	err = waitFor(ctx, "the DaemonSet's pod bound to the cordoned node", time.Minute, 500*time.Millisecond, func() (bool, error) {
		pods, err := c.pods(ctx, ns, "e2e=cordon")
		if err != nil {
			return false, err
		}
		for _, p := range pods {
			if p.Spec.NodeName != "" && p.Spec.NodeName != node {
				return false, fmt.Errorf("DaemonSet pod %s bound to %s, want %s", p.Name, p.Spec.NodeName, node)
			}
		}
		return len(pods) == 1 && pods[0].Spec.NodeName == node, fmt.Errorf("%d DaemonSet pods, %v", len(pods), podNodes(pods))
	})
	if err != nil {
		return err
	}
	if on, err := c.podNode(ctx, ns, "pinned"); err != nil || on != "" {
		return fmt.Errorf("a regular pod was bound to the cordoned node %q (%v)", on, err)
	}
	logf("   %s cordoned: the DaemonSet's pod bound there, a regular pod selecting it waits", node)
	if err := cordon(false); err != nil {
		return err
	}
	if err := c.waitPodOn(ctx, ns, "pinned", node, "the regular pod bound once the node is uncordoned"); err != nil {
		return err
	}
	// the DaemonSet first: its controller would recreate its pod
	if err := c.kube.AppsV1().DaemonSets(ns).Delete(ctx, "agent", metav1.DeleteOptions{}); err != nil {
		return err
	}
	return c.deleteNamespaceNow(ctx, ns)
}

// podNode returns the node pod ns/name is bound to, "" while it is not.
func (c *cluster) podNode(ctx context.Context, ns, name string) (string, error) {
	p, err := c.kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return p.Spec.NodeName, nil
}

// waitPodOn waits up to a minute for pod ns/name to be bound to node.
func (c *cluster) waitPodOn(ctx context.Context, ns, name, node, what string) error {
	return waitFor(ctx, what, time.Minute, 500*time.Millisecond, func() (bool, error) {
		on, err := c.podNode(ctx, ns, name)
		if err != nil {
			return false, err
		}
		return on == node, fmt.Errorf("node %q", on)
	})
}

func podNodes(pods []corev1.Pod) map[string]string {
	m := map[string]string{}
	for _, p := range pods {
		m[p.Name] = p.Spec.NodeName
	}
	return m
}
