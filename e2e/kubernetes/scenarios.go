package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type scenario struct {
	name string
	run  func(ctx context.Context, c *cluster) error
}

var scenarios = []scenario{
	{"quota", quotaScenario},
	{"gang", gangScenario},
	{"gang-timeout", gangTimeoutScenario},
	{"preemption", preemptionScenario},
	{"node-delete", nodeDeleteScenario},
	{"shim-restart", shimRestartScenario},
	{"admission", admissionScenario},
	{"anti-affinity", antiAffinityScenario},
	{"reservation", reservationScenario},
	{"gang-complete", gangCompleteScenario},
	{"cordon", cordonScenario},
}

func scenarioNames() []string {
	var n []string
	for _, s := range scenarios {
		n = append(n, s.name)
	}
	return n
}

func scenarioByName(name string) (scenario, bool) {
	for _, s := range scenarios {
		if s.name == name {
			return s, true
		}
	}
	return scenario{}, false
}

// queuesWith is the default queues.yaml with extra leaf queues under root
// (each line list already indented for a queue entry).
func queuesWith(extra string) string { return defaultQueues + extra }

// waitQueueMax waits until Paddock's queue shows max vcore (millicores, as
// queues.yaml's "1000m"; a bare "1000" is 1,000 cores), i.e. the
// ConfigMap change reached it.
func (c *cluster) waitQueueMax(ctx context.Context, queue string, vcore int64) error {
	return waitFor(ctx, fmt.Sprintf("Paddock's %s max vcore %d", queue, vcore), time.Minute, 500*time.Millisecond, func() (bool, error) {
		var q struct {
			MaxResource map[string]int64 `json:"maxResource"`
		}
		if err := c.rest(ctx, "/ws/v1/partition/default/queue/"+queue, &q); err != nil {
			return false, err
		}
		return q.MaxResource["vcore"] == vcore, fmt.Errorf("max %v", q.MaxResource)
	})
}

// quotaScenario: a queue's max from the shim's ConfigMap holds pods over it
// Pending with the reason in their events; they are bound once quota frees
// and once a ConfigMap change raises the max (hot reload).
func quotaScenario(ctx context.Context, c *cluster) error {
	const ns, queue = "e2e-quota", "root.e2e-quota"
	conf := func(maxVcore int) string {
		return queuesWith(fmt.Sprintf(`        queues:
          - name: e2e-quota
            resources:
              max: {vcore: %dm, memory: 64Gi}
`, maxVcore))
	}
	if err := c.writeShimConfig(ctx, conf(1000)); err != nil {
		return err
	}
	if err := c.waitQueueMax(ctx, queue, 1000); err != nil {
		return err
	}
	logf("   ConfigMap max vcore 1000m reached Paddock")
	if err := c.ensureNamespace(ctx, ns); err != nil {
		return err
	}
	for i := range 8 {
		if err := c.createPod(ctx, podSpec{ns: ns, name: fmt.Sprintf("q-%d", i), cpu: "200m", mem: "256Mi",
			labels: map[string]string{"e2e": "quota", "applicationId": "quota-app"}}); err != nil {
			return err
		}
	}
	bound, pending, err := c.waitBoundCount(ctx, ns, "e2e=quota", 5, time.Minute, 5*time.Second)
	if err != nil {
		return err
	}
	logf("   5 of 8 pods bound under max 1000m, pending %v", pending)
	// the reason, as kubectl describe pod shows it
	var shown []string
	err = waitFor(ctx, "the quota reason in a pending pod's events", time.Minute, time.Second, func() (bool, error) {
		ev, err := c.podEvents(ctx, ns, pending[0])
		if err != nil {
			return false, err
		}
		shown = ev
		return anyContains(ev, "does not fit in queue", "queue quota"), fmt.Errorf("events %q", ev)
	})
	if err != nil {
		return err
	}
	logf("   events of %s: %q", pending[0], shown)
	// free quota: two bound pods end
	zero := int64(0)
	for _, n := range bound[:2] {
		if err := c.kube.CoreV1().Pods(ns).Delete(ctx, n, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			return err
		}
	}
	if _, _, err := c.waitBoundCount(ctx, ns, "e2e=quota", 5, time.Minute, 3*time.Second); err != nil {
		return fmt.Errorf("after two pods ended: %w", err)
	}
	logf("   two pods ended: two pending ones bound, 5 bound, 1 pending")
	if err := c.writeShimConfig(ctx, conf(2000)); err != nil {
		return err
	}
	if err := c.waitQueueMax(ctx, queue, 2000); err != nil {
		return err
	}
	if _, _, err := c.waitBoundCount(ctx, ns, "e2e=quota", 6, time.Minute, 2*time.Second); err != nil {
		return fmt.Errorf("after max raised to 2000: %w", err)
	}
	logf("   ConfigMap max raised to 2000 (hot reload): the last pod bound")
	if err := c.writeShimConfig(ctx, c.shimConf); err != nil {
		return err
	}
	return c.deleteNamespaceNow(ctx, ns)
}

const placeholderAnnotation = "yunikorn.apache.org/placeholder"

func isPlaceholder(p corev1.Pod) bool {
	for k, v := range p.Annotations {
		if strings.HasSuffix(k, "yunikorn.apache.org/placeholder") && v == "true" {
			return true
		}
	}
	return false
}

func gangPod(ns, app, name string, members int, memberCPU string, timeout int, style string) podSpec {
	return podSpec{ns: ns, name: name, cpu: "200m", mem: "256Mi", never: true,
		labels: map[string]string{"e2e": "gang", "applicationId": app},
		annot: map[string]string{
			"yunikorn.apache.org/task-group-name":            "tg",
			"yunikorn.apache.org/task-groups":                fmt.Sprintf(`[{"name":"tg","minMember":%d,"minResource":{"cpu":%q,"memory":"256Mi"}}]`, members, memberCPU),
			"yunikorn.apache.org/schedulingPolicyParameters": fmt.Sprintf("placeholderTimeoutInSeconds=%d gangSchedulingStyle=%s", timeout, style),
		}}
}

// placeholderAppLabel is the label the shim puts on the placeholders it
// creates (not on the real pods, which carry applicationId).
const placeholderAppLabel = "yunikorn.apache.org/app-id"

// gangState lists a gang's pods in ns: the placeholders that exist now and
// the real pods with their nodes.
func (c *cluster) gangState(ctx context.Context, ns, app string) (placeholders int, real map[string]string, err error) {
	pods, err := c.pods(ctx, ns, "")
	if err != nil {
		return 0, nil, err
	}
	real = map[string]string{}
	for _, p := range pods {
		switch {
		case isPlaceholder(p) && p.Labels[placeholderAppLabel] == app:
			placeholders++
		case !isPlaceholder(p) && p.Labels["applicationId"] == app:
			real[p.Name] = p.Spec.NodeName
		}
	}
	return placeholders, real, nil
}

// gangScenario: a gang of 4 reserves 4 placeholders (seen through a watch,
// each bound), the 3 real pods replace 3 of them (each real pod is bound
// to a node a placeholder held) and the unused one is cleaned up when the
// placeholder timeout (15 s) passes with the application running.
func gangScenario(ctx context.Context, c *cluster) error {
	const ns, app = "e2e-gang", "gang-ok"
	if err := c.ensureNamespace(ctx, ns); err != nil {
		return err
	}
	ph, err := c.track(ctx, placeholderAppLabel+"="+app)
	if err != nil {
		return err
	}
	defer ph.close()
	for i := range 3 {
		if err := c.createPod(ctx, gangPod(ns, app, fmt.Sprintf("real-%d", i), 4, "200m", 15, "Hard")); err != nil {
			return err
		}
	}
	err = waitFor(ctx, "4 placeholders bound, real pods bound in their place, placeholders gone", 2*time.Minute, 500*time.Millisecond, func() (bool, error) {
		left, real, err := c.gangState(ctx, ns, app)
		if err != nil {
			return false, err
		}
		phNodes := map[string]bool{}
		ph.mu.Lock()
		created, bound := len(ph.pods), ph.bound
		for _, p := range ph.pods {
			if p.node != "" {
				phNodes[p.node] = true
			}
		}
		ph.mu.Unlock()
		realBound := 0
		for name, node := range real {
			if node == "" {
				continue
			}
			if !phNodes[node] {
				return false, fmt.Errorf("real pod %s bound to %s, where no placeholder was", name, node)
			}
			realBound++
		}
		return created == 4 && bound == 4 && realBound == 3 && left == 0,
			fmt.Errorf("%d placeholders created, %d bound, %d left; %d of 3 real pods bound", created, bound, left, realBound)
	})
	if err != nil {
		return err
	}
	logf("   4 placeholders created and bound, the 3 real pods bound in their place, the 4th cleaned up after the timeout")
	return c.deleteNamespaceNow(ctx, ns)
}

// gangTimeoutScenario: a gang that cannot fit (members larger than any
// node) times out: Hard style fails the real pod with the shim's reason
// and the placeholders are removed.
func gangTimeoutScenario(ctx context.Context, c *cluster) error {
	const ns, app = "e2e-gangto", "gang-big"
	if err := c.ensureNamespace(ctx, ns); err != nil {
		return err
	}
	ph, err := c.track(ctx, placeholderAppLabel+"="+app)
	if err != nil {
		return err
	}
	defer ph.close()
	// members of 5 CPUs fit no 4 CPU node
	if err := c.createPod(ctx, gangPod(ns, app, "real-0", 2, "5", 15, "Hard")); err != nil {
		return err
	}
	var created int
	err = waitFor(ctx, "gang timed out", 3*time.Minute, time.Second, func() (bool, error) {
		left, _, err := c.gangState(ctx, ns, app)
		if err != nil {
			return false, err
		}
		p, err := c.kube.CoreV1().Pods(ns).Get(ctx, "real-0", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if p.Spec.NodeName != "" {
			return false, fmt.Errorf("the real pod of an unfittable gang was bound to %s", p.Spec.NodeName)
		}
		ph.mu.Lock()
		var bound int
		created, bound = len(ph.pods), ph.bound
		ph.mu.Unlock()
		if bound > 0 {
			return false, fmt.Errorf("a placeholder of 5 CPUs was bound to a 4 CPU node")
		}
		failed := p.Status.Phase == corev1.PodFailed && p.Status.Reason == "ResourceReservationTimeout"
		return failed && created == 2 && left == 0,
			fmt.Errorf("%d placeholders created, %d left; real pod %s %q", created, left, p.Status.Phase, p.Status.Reason)
	})
	if err != nil {
		return err
	}
	logf("   %d placeholders created, none bound; after the 15 s timeout the real pod is Failed (ResourceReservationTimeout) and the placeholders removed", created)
	return c.deleteNamespaceNow(ctx, ns)
}

// preemptionScenario: four nodes labelled for it are filled by low-priority
// pods; a high-priority pod that fits nowhere preempts one of them.
func preemptionScenario(ctx context.Context, c *cluster) error {
	const ns = "e2e-preempt"
	if c.o.nodes < 4 {
		return fmt.Errorf("needs 4 nodes")
	}
	for i := range 4 {
		n := fmt.Sprintf("kwok-%04d", i)
		patch := []byte(`{"metadata":{"labels":{"e2e-preempt":"yes"}}}`)
		if _, err := c.kube.CoreV1().Nodes().Patch(ctx, n, "application/merge-patch+json", patch, metav1.PatchOptions{}); err != nil {
			return err
		}
	}
	for name, v := range map[string]int32{"e2e-low": 100, "e2e-high": 1000} {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: v}
		if _, err := c.kube.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	conf := queuesWith(`        queues:
          - name: e2e-low
          - name: e2e-high
            resources:
              guaranteed: {vcore: 4000m, memory: 8Gi}
`)
	if err := c.writeShimConfig(ctx, conf); err != nil {
		return err
	}
	if err := c.ensureNamespace(ctx, ns); err != nil {
		return err
	}
	sel := map[string]string{"e2e-preempt": "yes"}
	for i := range 4 {
		if err := c.createPod(ctx, podSpec{ns: ns, name: fmt.Sprintf("low-%d", i), cpu: "3", mem: "1Gi", priorityClass: "e2e-low",
			nodeSelector: sel, labels: map[string]string{"e2e": "preempt", "applicationId": "low", "queue": "root.e2e-low"}}); err != nil {
			return err
		}
	}
	if _, _, err := c.waitBoundCount(ctx, ns, "applicationId=low", 4, time.Minute, 0); err != nil {
		return err
	}
	lows, err := c.pods(ctx, ns, "applicationId=low")
	if err != nil {
		return err
	}
	lowNode := map[string]string{}
	for _, p := range lows {
		lowNode[p.Name] = p.Spec.NodeName
	}
	if err := c.createPod(ctx, podSpec{ns: ns, name: "high-0", cpu: "2", mem: "1Gi", priorityClass: "e2e-high",
		nodeSelector: sel, labels: map[string]string{"e2e": "preempt", "applicationId": "high", "queue": "root.e2e-high"}}); err != nil {
		return err
	}
	t := time.Now()
	var victim, highNode string
	err = waitFor(ctx, "the high-priority pod bound in the place of a preempted low one", 3*time.Minute, time.Second, func() (bool, error) {
		pods, err := c.pods(ctx, ns, "e2e=preempt")
		if err != nil {
			return false, err
		}
		highNode, victim = "", ""
		left := map[string]bool{}
		for _, p := range pods {
			switch {
			case p.Name == "high-0":
				highNode = p.Spec.NodeName
			case p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded:
				left[p.Name] = true
			}
		}
		for name := range lowNode {
			if !left[name] {
				if victim != "" {
					return false, fmt.Errorf("more than one low pod gone: %s, %s", victim, name)
				}
				victim = name
			}
		}
		if highNode == "" || victim == "" {
			return false, fmt.Errorf("high bound to %q, %d low pods left", highNode, len(left))
		}
		if lowNode[victim] != highNode {
			return false, fmt.Errorf("high bound to %s, but the low pod gone (%s) was on %s", highNode, victim, lowNode[victim])
		}
		// the victim's events say why it went, as kubectl describe shows
		ev, err := c.podEvents(ctx, ns, victim)
		if err != nil {
			return false, err
		}
		return anyContains(ev, "preempted by"), fmt.Errorf("no preemption event for %s: %q", victim, ev)
	})
	if err != nil {
		return err
	}
	logf("   high-priority pod bound to %s %s after creation, in the place of %s (its events: preempted by the high app)", highNode, since(t), victim)
	if err := c.writeShimConfig(ctx, c.shimConf); err != nil {
		return err
	}
	return c.deleteNamespaceNow(ctx, ns)
}

// nodeDeleteScenario: nodes holding pods are deleted while a wave is
// scheduled (once a twentieth of it is bound); Paddock drops them, their
// pods are replaced on the other nodes, and Paddock's usage matches the
// API server's again.
func nodeDeleteScenario(ctx context.Context, c *cluster) error {
	w := wave{id: "nd", scheduler: shimScheduler, pods: min(c.o.pods, 1000), namespaces: min(c.o.namespaces, 4)}
	doomed := max(1, c.o.nodes/20)
	t, err := c.track(ctx, "wave="+w.id)
	if err != nil {
		return err
	}
	defer t.close()
	if err := c.createWave(ctx, w); err != nil {
		return err
	}
	if err := t.waitBound(ctx, max(1, w.pods/20), c.o.waveWait, c.stallGuard(w)); err != nil {
		return err
	}
	// delete nodes holding pods of the wave, taken from the watch so that
	// the wave is still being bound
	var gone []string
	t.mu.Lock()
	picked := map[string]bool{}
	for _, p := range t.pods {
		if len(gone) < doomed && p.node != "" && !picked[p.node] {
			picked[p.node] = true
			gone = append(gone, p.node)
		}
	}
	t.mu.Unlock()
	boundAtDelete := t.boundCount()
	if err := parallel(ctx, len(gone), 16, func(i int) error {
		return c.kube.CoreV1().Nodes().Delete(ctx, gone[i], metav1.DeleteOptions{})
	}); err != nil {
		return err
	}
	logf("   deleted %d nodes holding pods, from when %d of %d were bound (%d when the deletes returned)", len(gone), boundAtDelete, w.pods, t.boundCount())
	deploy := 0
	for i := range w.namespaces {
		d, _ := w.split(i)
		deploy += d
	}
	err = waitFor(ctx, "every Deployment pod bound to a live node", 5*time.Minute, 2*time.Second, func() (bool, error) {
		pods, err := c.pods(ctx, "", "wave="+w.id)
		if err != nil {
			return false, err
		}
		live, onGone := 0, 0
		for _, p := range pods {
			if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
				continue
			}
			if p.Spec.NodeName == "" {
				continue
			}
			isGone := false
			for _, g := range gone {
				isGone = isGone || p.Spec.NodeName == g
			}
			if isGone {
				onGone++
			} else {
				live++
			}
		}
		return live == deploy && onGone == 0, fmt.Errorf("%d running on live nodes (want %d), %d still on deleted nodes", live, deploy, onGone)
	})
	if err != nil {
		return err
	}
	var nodes []restNode
	if err := c.rest(ctx, "/ws/v1/partition/default/nodes", &nodes); err != nil {
		return err
	}
	for _, n := range nodes {
		for _, g := range gone {
			if n.NodeID == g {
				return fmt.Errorf("deleted node %s still in Paddock", g)
			}
		}
	}
	if err := c.checkRoom(ctx); err != nil {
		return err
	}
	if err := c.checkPaddockUsage(ctx, time.Minute); err != nil {
		return err
	}
	logf("   pods of the deleted nodes replaced on live ones; Paddock lists %d nodes and its usage matches", len(nodes))
	if err := c.deleteWave(ctx, w); err != nil {
		return err
	}
	// the nodes come back for the next scenarios
	return c.addNodes(ctx, c.o.nodes)
}

// shimRestartScenario: the shim is killed while a wave is scheduled and
// started again; it recovers the bound pods from the API server, binds the
// rest, and nothing is bound twice or over a node's room.
func shimRestartScenario(ctx context.Context, c *cluster) error {
	w := wave{id: "rs", scheduler: shimScheduler, pods: min(c.o.pods, 2000), namespaces: min(c.o.namespaces, 4)}
	t, err := c.track(ctx, "wave="+w.id)
	if err != nil {
		return err
	}
	defer t.close()
	if err := c.createWave(ctx, w); err != nil {
		return err
	}
	if err := t.waitBound(ctx, w.pods/3, c.o.waveWait, c.stallGuard(w)); err != nil {
		return err
	}
	failedBefore, err := c.countLog("shim", "failed to bind pod")
	if err != nil {
		return err
	}
	c.procs["shim"].kill()
	logf("   shim killed with %d of %d pods bound", t.boundCount(), w.pods)
	start := time.Now()
	if err := c.startShim(ctx); err != nil {
		return err
	}
	logf("   shim restarted, Paddock lists every node after %s", since(start))
	if err := t.waitBound(ctx, w.pods, c.o.waveWait, c.stallGuard(w)); err != nil {
		return err
	}
	r := t.result()
	if len(r.rebound) > 0 {
		return fmt.Errorf("pods bound to a second node: %v", r.rebound)
	}
	if err := c.checkRoom(ctx); err != nil {
		return err
	}
	if err := c.checkPaddockUsage(ctx, time.Minute); err != nil {
		return err
	}
	// a recovered pod bound again would be refused by the API server, and
	// the shim logs each refusal
	failedAfter, err := c.countLog("shim", "failed to bind pod")
	if err != nil {
		return err
	}
	if failedAfter != failedBefore {
		return fmt.Errorf("the restarted shim had %d binds refused by the API server", failedAfter-failedBefore)
	}
	logf("   all %d bound once each (no bind refused), %s after the restart; Paddock's usage matches", w.pods, since(start))
	return c.deleteWave(ctx, w)
}

// antiAffinityScenario: under the binpacking node policy every ask would
// go to the fullest node that fits, so pods that exclude each other
// (required pod anti-affinity on the hostname, one host port) test that the
// shim's node checks see the pods placed before them: Paddock must tell
// the shim of each allocation (which it assumes on its node) before it
// asks about the next pod. Each pod must be on a node of its own.
func antiAffinityScenario(ctx context.Context, c *cluster) error {
	const ns = "e2e-anti"
	conf := strings.Replace(defaultQueues, "  - name: default\n", "  - name: default\n    nodesortpolicy:\n      type: binpacking\n", 1)
	if err := c.writeShimConfig(ctx, conf); err != nil {
		return err
	}
	err := waitFor(ctx, "Paddock's binpacking node policy", time.Minute, 500*time.Millisecond, func() (bool, error) {
		var ps []struct {
			NodeSortingPolicy struct {
				Type string `json:"type"`
			} `json:"nodeSortingPolicy"`
		}
		if err := c.rest(ctx, "/ws/v1/partitions", &ps); err != nil {
			return false, err
		}
		return len(ps) > 0 && ps[0].NodeSortingPolicy.Type == "binpacking", fmt.Errorf("partitions %+v", ps)
	})
	if err != nil {
		return err
	}
	logf("   ConfigMap's binpacking node policy reached Paddock")
	if err := c.ensureNamespace(ctx, ns); err != nil {
		return err
	}
	const spread, ports = 6, 4
	for i := range spread + ports {
		s := podSpec{ns: ns, name: fmt.Sprintf("spread-%d", i), cpu: "100m", mem: "128Mi",
			labels: map[string]string{"e2e": "anti", "applicationId": "anti-app", "group": "spread"}}
		if i < spread {
			s.antiAffinity = map[string]string{"group": "spread"}
		} else {
			s.name, s.hostPort = fmt.Sprintf("port-%d", i-spread), 8080
			s.labels["group"] = "port"
		}
		if err := c.createPod(ctx, s); err != nil {
			return err
		}
	}
	if _, _, err := c.waitBoundCount(ctx, ns, "e2e=anti", spread+ports, time.Minute, time.Second); err != nil {
		return err
	}
	for _, group := range []string{"spread", "port"} {
		pods, err := c.pods(ctx, ns, "e2e=anti,group="+group)
		if err != nil {
			return err
		}
		on := map[string]string{}
		for _, p := range pods {
			if other, taken := on[p.Spec.NodeName]; taken {
				return fmt.Errorf("%s and %s both on node %s, which their %s forbids", other, p.Name, p.Spec.NodeName,
					map[string]string{"spread": "required pod anti-affinity", "port": "host port"}[group])
			}
			on[p.Spec.NodeName] = p.Name
		}
		logf("   %d %s pods on %d nodes", len(pods), group, len(on))
	}
	if err := c.writeShimConfig(ctx, c.shimConf); err != nil {
		return err
	}
	return c.deleteNamespaceNow(ctx, ns)
}

// reservationScenario: a pod too large for the room left on the one node
// its selector allows reserves that node once it has waited (2 s), so the
// small pods that keep coming do not take the room it needs. Paddock asks
// the shim's Predicates about the node for the reservation with
// allocate=false, as the reference does: the shim then leaves out its node
// resources check, which would refuse a node whose room is not free yet.
func reservationScenario(ctx context.Context, c *cluster) error {
	const ns = "e2e-resv"
	nodes, err := c.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "type=kwok"})
	if err != nil {
		return err
	}
	if len(nodes.Items) == 0 {
		return fmt.Errorf("no KWOK node")
	}
	node := nodes.Items[len(nodes.Items)-1].Name // the fewest pods from other scenarios
	if err := c.ensureNamespace(ctx, ns); err != nil {
		return err
	}
	pod := func(name, cpu string) podSpec {
		return podSpec{ns: ns, name: name, cpu: cpu, mem: "128Mi", nodeSelector: map[string]string{"kubernetes.io/hostname": node},
			labels: map[string]string{"e2e": "resv", "applicationId": "resv-" + name}}
	}
	for i := range 3 {
		if err := c.createPod(ctx, pod(fmt.Sprintf("small-%d", i), "1")); err != nil {
			return err
		}
	}
	if _, _, err := c.waitBoundCount(ctx, ns, "e2e=resv", 3, time.Minute, time.Second); err != nil {
		return err
	}
	if err := c.createPod(ctx, pod("big", "2")); err != nil {
		return err
	}
	err = waitFor(ctx, "Paddock's reservation of "+node+" for the big pod", time.Minute, 500*time.Millisecond, func() (bool, error) {
		var n struct {
			Reservations []string `json:"reservations"`
		}
		if err := c.rest(ctx, "/ws/v1/partition/default/node/"+node, &n); err != nil {
			return false, err
		}
		return len(n.Reservations) > 0, fmt.Errorf("reservations %v", n.Reservations)
	})
	if err != nil {
		return err
	}
	logf("   %s reserved for the pod that does not fit there yet", node)
	// a small pod that would fit in the room left waits: the node is held
	if err := c.createPod(ctx, pod("late", "1")); err != nil {
		return err
	}
	if _, _, err := c.waitBoundCount(ctx, ns, "e2e=resv", 3, time.Minute, 3*time.Second); err != nil {
		return fmt.Errorf("with the node reserved: %w", err)
	}
	zero := int64(0)
	if err := c.kube.CoreV1().Pods(ns).Delete(ctx, "small-0", metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		return err
	}
	if err := c.waitPodOn(ctx, ns, "big", node, "the big pod bound on "+node); err != nil {
		return err
	}
	if on, err := c.podNode(ctx, ns, "late"); err != nil || on != "" {
		return fmt.Errorf("the late pod bound to %q (%v); want it pending (the node is full)", on, err)
	}
	logf("   a small pod ended: the big pod bound in its place, the late one still waits")
	return c.deleteNamespaceNow(ctx, ns)
}
