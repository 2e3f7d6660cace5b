package main

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// The pods of a wave: 20 fit a KWOK node by CPU, 32 by memory.
var (
	waveCPU    = resource.MustParse("200m")
	waveMemory = resource.MustParse("512Mi")
)

// wave is a set of Deployments and Jobs spread over namespaces, all pods
// labelled wave=<id> and naming one scheduler.
type wave struct {
	id         string
	scheduler  string
	pods       int
	namespaces int
	// held, when above 0, is the share of each Deployment's replicas
	// that createWave leaves out; scaleWave adds them later
	held float64
}

// heldBack is how many of the wave's pods createWave leaves out.
func (w wave) heldBack() int {
	n := 0
	for i := range w.namespaces {
		d, _ := w.split(i)
		n += d - w.initial(d)
	}
	return n
}

// initial is the replicas createWave gives a Deployment of deploy.
func (w wave) initial(deploy int) int { return deploy - int(float64(deploy)*w.held) }

func (w wave) namespace(i int) string { return fmt.Sprintf("%s-%02d", w.id, i) }

// split returns the Deployment replicas and Job completions of namespace
// i: the pods spread evenly, 80% of each namespace's from a Deployment.
func (w wave) split(i int) (deploy, job int) {
	n := w.pods / w.namespaces
	if i < w.pods%w.namespaces {
		n++
	}
	job = n / 5
	return n - job, job
}

// tracker records, for every pod of a wave, when the harness first saw it
// and when it first saw it bound to a node.
type tracker struct {
	mu    sync.Mutex
	pods  map[types.UID]*podTimes
	bound int
	// boundCh gets a value each time bound grows
	boundCh chan struct{}
	stop    chan struct{}
}

type podTimes struct {
	name        string
	seen, bound time.Time
	node        string
	rebound     bool // the node changed after binding: must never happen
}

func (c *cluster) track(ctx context.Context, selector string) (*tracker, error) {
	t := &tracker{pods: map[types.UID]*podTimes{}, boundCh: make(chan struct{}, 1), stop: make(chan struct{})}
	lw := cache.NewFilteredListWatchFromClient(c.kube.CoreV1().RESTClient(), "pods", metav1.NamespaceAll,
		func(o *metav1.ListOptions) { o.LabelSelector = selector })
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
	on := func(obj any) {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return
		}
		now := time.Now()
		t.mu.Lock()
		defer t.mu.Unlock()
		pt := t.pods[p.UID]
		if pt == nil {
			pt = &podTimes{name: p.Namespace + "/" + p.Name, seen: now}
			t.pods[p.UID] = pt
		}
		if p.Spec.NodeName != "" {
			if pt.bound.IsZero() {
				pt.bound, pt.node = now, p.Spec.NodeName
				t.bound++
				select {
				case t.boundCh <- struct{}{}:
				default:
				}
			} else if pt.node != p.Spec.NodeName {
				pt.rebound = true
			}
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: on, UpdateFunc: func(_, n any) { on(n) },
	}); err != nil {
		return nil, err
	}
	go inf.Run(t.stop)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		close(t.stop)
		return nil, fmt.Errorf("pod informer did not sync")
	}
	return t, nil
}

func (t *tracker) close() { close(t.stop) }

func (t *tracker) boundCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bound
}

// waitBound waits until n pods are bound, printing progress.
// waitBound waits until n pods are bound, printing progress. When guard
// is not nil, it is called each time the bound count has stood still for
// StandStill (and every StandStill after) while fewer than n are bound: an
// error from it ends the wait.
func (t *tracker) waitBound(ctx context.Context, n int, timeout time.Duration, guard func(context.Context) error) error {
	deadline := time.After(timeout)
	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	look := time.NewTicker(time.Second)
	defer look.Stop()
	last, since := -1, time.Now()
	for {
		b := t.boundCount()
		if b >= n {
			return nil
		}
		if b != last {
			last, since = b, time.Now()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return fmt.Errorf("%d of %d pods bound within %s", b, n, timeout)
		case <-tick.C:
			t.mu.Lock()
			logf("   %d seen, %d bound", len(t.pods), t.bound)
			t.mu.Unlock()
		case <-look.C:
			if guard != nil && time.Since(since) >= StandStill {
				if err := guard(ctx); err != nil {
					return fmt.Errorf("%d of %d bound, none for %s: %w", b, n, time.Since(since).Round(time.Second), err)
				}
				since = time.Now() // looked: look again after another StandStill
			}
		case <-t.boundCh:
		}
	}
}

// result is a wave's figures.
type result struct {
	pods               int
	created, boundSpan time.Duration // first seen to last seen; first seen to last bound
	p50, p99, max      time.Duration // seen to bound
	rebound            []string
}

func (r result) rate() float64 { return float64(r.pods) / r.boundSpan.Seconds() }

func (t *tracker) result() result {
	t.mu.Lock()
	defer t.mu.Unlock()
	var first, lastSeen, lastBound time.Time
	var lat []time.Duration
	var r result
	for _, p := range t.pods {
		if first.IsZero() || p.seen.Before(first) {
			first = p.seen
		}
		if p.seen.After(lastSeen) {
			lastSeen = p.seen
		}
		if p.rebound {
			r.rebound = append(r.rebound, p.name)
		}
		if p.bound.IsZero() {
			continue
		}
		if p.bound.After(lastBound) {
			lastBound = p.bound
		}
		lat = append(lat, p.bound.Sub(p.seen))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	r.pods = len(lat)
	r.created, r.boundSpan = lastSeen.Sub(first), lastBound.Sub(first)
	if len(lat) > 0 {
		r.p50, r.p99, r.max = lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1]
	}
	return r
}

func podTemplate(labels map[string]string, scheduler string, cpu, mem resource.Quantity) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{
			SchedulerName: scheduler,
			Containers: []corev1.Container{{
				Name: "c", Image: "registry.invalid/fake:1",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem}},
			}},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: new(int64),
		},
	}
}

// create creates the wave's namespaces, Deployments and Jobs.
func (c *cluster) createWave(ctx context.Context, w wave) error {
	return parallel(ctx, w.namespaces, 8, func(i int) error {
		ns := w.namespace(i)
		if err := c.ensureNamespace(ctx, ns); err != nil {
			return err
		}
		deploy, job := w.split(i)
		labels := map[string]string{"wave": w.id, "app": ns + "-d"}
		if deploy > 0 {
			r := int32(w.initial(deploy))
			d := &appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: ns},
				Spec: appsv1.DeploymentSpec{
					Replicas: &r, Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: podTemplate(labels, w.scheduler, waveCPU, waveMemory),
				},
			}
			if _, err := c.kube.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
				return err
			}
		}
		if job > 0 {
			n := int32(job)
			tmpl := podTemplate(map[string]string{"wave": w.id}, w.scheduler, waveCPU, waveMemory)
			tmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
			j := &batchv1.Job{
				ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: ns},
				Spec:       batchv1.JobSpec{Parallelism: &n, Completions: &n, Template: tmpl},
			}
			if _, err := c.kube.BatchV1().Jobs(ns).Create(ctx, j, metav1.CreateOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
}

// scaleWave gives every Deployment of a wave all its replicas (those
// createWave held back).
func (c *cluster) scaleWave(ctx context.Context, w wave) error {
	return parallel(ctx, w.namespaces, 8, func(i int) error {
		ns := w.namespace(i)
		deploy, _ := w.split(i)
		// a merge patch of the replicas: no conflict with the controller's
		// status writes, which an update of the read object would have
		patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, deploy)
		_, err := c.kube.AppsV1().Deployments(ns).Patch(ctx, "d", types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	})
}

// deleteWave removes a wave's workloads and pods (at once, without grace)
// and waits until no pod of it is left.
func (c *cluster) deleteWave(ctx context.Context, w wave) error {
	bg := metav1.DeletePropagationBackground
	zero := int64(0)
	err := parallel(ctx, w.namespaces, 8, func(i int) error {
		ns := w.namespace(i)
		for _, del := range []func() error{
			func() error {
				return c.kube.AppsV1().Deployments(ns).Delete(ctx, "d", metav1.DeleteOptions{PropagationPolicy: &bg})
			},
			func() error {
				return c.kube.BatchV1().Jobs(ns).Delete(ctx, "j", metav1.DeleteOptions{PropagationPolicy: &bg})
			},
			func() error {
				return c.kube.AppsV1().ReplicaSets(ns).DeleteCollection(ctx, metav1.DeleteOptions{PropagationPolicy: &bg}, metav1.ListOptions{})
			},
		} {
			if err := del(); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
		// a collection of hundreds of pods may outlast the API server's
		// request timeout on a busy machine: what is left is deleted
		// below, and by the garbage collector
		if err := c.kube.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil && !apierrors.IsNotFound(err) {
			logf("   deleting the pods of %s: %v (left to the wait)", ns, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.waitNoPods(ctx, "wave="+w.id, max(3*time.Minute, time.Duration(w.pods)*20*time.Millisecond))
}

// waitNoPods waits until no pod matches selector; pods left holding a
// finalizer after a while (Job tracking) get it removed.
func (c *cluster) waitNoPods(ctx context.Context, selector string, timeout time.Duration) error {
	start := time.Now()
	return waitFor(ctx, "pods "+selector+" gone", timeout, time.Second, func() (bool, error) {
		pods, err := c.kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, err
		}
		if time.Since(start) > 20*time.Second {
			zero := int64(0)
			_ = parallel(ctx, len(pods.Items), 16, func(i int) error {
				p := pods.Items[i]
				if len(p.Finalizers) > 0 {
					_, _ = c.kube.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.MergePatchType,
						[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
				}
				_ = c.kube.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
				return nil
			})
		}
		return len(pods.Items) == 0, fmt.Errorf("%d left", len(pods.Items))
	})
}

// nodeUse is the requests of the pods bound to each node and not
// finished.
type nodeUse map[string]struct{ cpu, mem, pods int64 }

func (c *cluster) nodeUsage(ctx context.Context, scheduler string) (nodeUse, error) {
	pods, err := c.kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermNotEqualSelector("spec.nodeName", "").String()})
	if err != nil {
		return nil, err
	}
	u := nodeUse{}
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if scheduler != "" && p.Spec.SchedulerName != scheduler {
			continue
		}
		e := u[p.Spec.NodeName]
		for _, ct := range p.Spec.Containers {
			e.cpu += ct.Resources.Requests.Cpu().MilliValue()
			e.mem += ct.Resources.Requests.Memory().Value()
		}
		e.pods++
		u[p.Spec.NodeName] = e
	}
	return u, nil
}

// checkRoom fails when a node holds more than its allocatable.
func (c *cluster) checkRoom(ctx context.Context) error {
	u, err := c.nodeUsage(ctx, "")
	if err != nil {
		return err
	}
	nodes, err := c.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	alloc := map[string]corev1.ResourceList{}
	for _, n := range nodes.Items {
		alloc[n.Name] = n.Status.Allocatable
	}
	for node, e := range u {
		a, ok := alloc[node]
		if !ok {
			continue // deleted under load; its pods are being removed
		}
		if e.cpu > a.Cpu().MilliValue() || e.mem > a.Memory().Value() || e.pods > a.Pods().Value() {
			return fmt.Errorf("node %s over capacity: %dm CPU, %d bytes, %d pods bound; allocatable %s",
				node, e.cpu, e.mem, e.pods, fmt.Sprint(a))
		}
	}
	return nil
}

// checkPaddockUsage compares, node by node, the requests of the running
// pods the shim scheduled with what Paddock's REST API reports allocated,
// waiting for completions in flight to settle.
func (c *cluster) checkPaddockUsage(ctx context.Context, timeout time.Duration) error {
	return waitFor(ctx, "Paddock's node usage equals the API server's", timeout, 2*time.Second, func() (bool, error) {
		u, err := c.nodeUsage(ctx, shimScheduler)
		if err != nil {
			return false, err
		}
		var nodes []restNode
		if err := c.rest(ctx, "/ws/v1/partition/default/nodes", &nodes); err != nil {
			return false, err
		}
		mismatch, first := 0, ""
		seen := map[string]bool{}
		for _, n := range nodes {
			seen[n.NodeID] = true
			e := u[n.NodeID]
			if n.Allocated["vcore"] != e.cpu || n.Allocated["memory"] != e.mem || n.Allocated["pods"] != e.pods {
				mismatch++
				if first == "" {
					first = fmt.Sprintf("%s: Paddock %v, API server %dm CPU %d bytes %d pods", n.NodeID, n.Allocated, e.cpu, e.mem, e.pods)
				}
			}
		}
		for node := range u {
			if !seen[node] {
				mismatch++
				first = "node " + node + " has pods but is not in Paddock"
			}
		}
		return mismatch == 0, fmt.Errorf("%d nodes differ, e.g. %s", mismatch, first)
	})
}

// checkPlacement checks the shim's placement rules on a wave: each of its
// namespaces is a queue root.<namespace> in Paddock whose allocated
// resources are the requests of that namespace's running pods, and the
// wave's applications are in it. It waits for completions in flight to
// settle.
func (c *cluster) checkPlacement(ctx context.Context, w wave, timeout time.Duration) error {
	return waitFor(ctx, "each namespace's pods in its own queue", timeout, 2*time.Second, func() (bool, error) {
		for i := range w.namespaces {
			ns := w.namespace(i)
			pods, err := c.pods(ctx, ns, "wave="+w.id)
			if err != nil {
				return false, err
			}
			var cpu, mem, n int64
			for _, p := range pods {
				if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
					continue
				}
				for _, ct := range p.Spec.Containers {
					cpu += ct.Resources.Requests.Cpu().MilliValue()
					mem += ct.Resources.Requests.Memory().Value()
				}
				n++
			}
			var q struct {
				QueueName string           `json:"queuename"`
				Allocated map[string]int64 `json:"allocatedResource"`
			}
			if err := c.rest(ctx, "/ws/v1/partition/default/queue/root."+ns, &q); err != nil {
				return false, err
			}
			if q.Allocated["vcore"] != cpu || q.Allocated["memory"] != mem || q.Allocated["pods"] != n {
				return false, fmt.Errorf("queue root.%s allocated %v, its namespace runs %dm CPU %d bytes %d pods", ns, q.Allocated, cpu, mem, n)
			}
			var apps []struct {
				ID    string `json:"applicationID"`
				Queue string `json:"queueName"`
			}
			if err := c.rest(ctx, "/ws/v1/partition/default/queue/root."+ns+"/applications", &apps); err != nil {
				return false, err
			}
			if len(apps) == 0 {
				return false, fmt.Errorf("no application in queue root.%s", ns)
			}
			for _, a := range apps {
				if a.Queue != "root."+ns {
					return false, fmt.Errorf("application %s of queue root.%s reports queue %q", a.ID, ns, a.Queue)
				}
			}
		}
		return true, nil
	})
}

// runWave creates a wave, waits until every pod is bound and checks that no
// node went over its capacity; it returns the wave's figures.
// guard, when not nil, is called whenever the bound count has stood still
// for StallAfter while pods wait; an error from it fails the wave.
func (c *cluster) runWave(ctx context.Context, w wave, guard func(context.Context) error) (result, error) {
	t, err := c.track(ctx, "wave="+w.id)
	if err != nil {
		return result{}, err
	}
	defer t.close()
	if err := c.createWave(ctx, w); err != nil {
		return result{}, err
	}
	if err := t.waitBound(ctx, w.pods, c.o.waveWait, guard); err != nil {
		return result{}, err
	}
	r := t.result()
	if len(r.rebound) > 0 {
		return r, fmt.Errorf("pods bound to a second node: %v", r.rebound)
	}
	return r, c.checkRoom(ctx)
}

// probe creates one pod for scheduler and waits until it is bound: the
// scheduler is up and watching.
func (c *cluster) probe(ctx context.Context, scheduler string) error {
	name := "probe-" + fmt.Sprint(time.Now().UnixNano())
	tmpl := podTemplate(map[string]string{"probe": "1"}, scheduler, resource.MustParse("1m"), resource.MustParse("1Mi"))
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: tmpl.Labels}, Spec: tmpl.Spec}
	if _, err := c.kube.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return err
	}
	err := waitFor(ctx, scheduler+" binds a probe pod", 2*time.Minute, 200*time.Millisecond, func() (bool, error) {
		p, err := c.kube.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		return err == nil && p.Spec.NodeName != "", err
	})
	zero := int64(0)
	_ = c.kube.CoreV1().Pods("default").Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	return err
}
