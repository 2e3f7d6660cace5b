package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The high-availability scenarios (docs/high-availability.md) run two
// replicas of the shim on Paddock with leader election (deploy/ha, built
// into the cache as paddock-ha), each talking to the API server through
// an apiProxy of its own, and the harness's REST checks reaching the
// leader through a forward on the usual REST port.
func init() {
	scenarios = append(scenarios,
		scenario{"failover-crash", failoverCrashScenario},
		scenario{"failover-graceful", failoverGracefulScenario},
		scenario{"partition", partitionScenario},
		scenario{"rolling-update", rollingUpdateScenario},
		scenario{"standby-quiet", standbyQuietScenario},
		scenario{"kube-scheduler-ha", kubeSchedulerHAScenario},
	)
}

// haLease is the Lease the replicas run for (deploy/ha's default name).
const haLease = "paddock-scheduler"

// keyLeaderElection is the ConfigMap key that turns leader election on.
const keyLeaderElection = "paddock.leaderElection.enabled"

// haSettings are the ConfigMap keys the replicas run with: the lease of
// -lease, the shim's scheduling loop at 100 ms so that the applications
// the new leader's shim hears accepted go on at once, the shim's client
// at 200 requests/s (at the upstream default, 1,000, a new leader binds
// hundreds of pods at once, each with its events, and its own Lease
// renewals wait seconds behind them at the API server), and Paddock's
// allocations to the shim at the pace it binds them.
func haSettings(l leaseTimes, qps, pace int) map[string]string {
	return map[string]string{
		keyLeaderElection:                      "true",
		"paddock.leaderElection.leaseDuration": l.duration.String(),
		"paddock.leaderElection.renewDeadline": l.renew.String(),
		"paddock.leaderElection.retryPeriod":   l.retry.String(),
		"service.schedulingInterval":           "100ms",
		"kubernetes.qps":                       strconv.Itoa(qps),
		"kubernetes.burst":                     strconv.Itoa(qps),
		// a bind costs the shim about four requests (the binding and
		// its events): at 200 requests/s it binds about 50 pods/s, and
		// allocations given faster wait as binds in flight, which a
		// graceful stop must drain before it releases the Lease
		"paddock.allocations.perSecond": strconv.Itoa(pace),
	}
}

// leaseTimes are a Lease's duration, renew deadline and retry period.
type leaseTimes struct{ duration, renew, retry time.Duration }

func (l leaseTimes) String() string { return fmt.Sprintf("%s,%s,%s", l.duration, l.renew, l.retry) }

// Set parses -lease: "duration,renewDeadline,retryPeriod".
func (l *leaseTimes) Set(v string) error {
	parts := strings.Split(v, ",")
	if len(parts) != 3 {
		return fmt.Errorf("want duration,renewDeadline,retryPeriod, got %q", v)
	}
	var d [3]time.Duration
	for i, p := range parts {
		x, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil || x <= 0 {
			return fmt.Errorf("%q is not a positive duration", p)
		}
		d[i] = x
	}
	if d[1] >= d[0] || d[2] >= d[1] {
		return fmt.Errorf("want retryPeriod < renewDeadline < duration, got %q", v)
	}
	*l = leaseTimes{d[0], d[1], d[2]}
	return nil
}

// paddockLease is deploy/ha's default lease (3 s, 2 s, 500 ms).
var paddockLease = leaseTimes{3 * time.Second, 2 * time.Second, 500 * time.Millisecond}

// haReplica is one replica: its process, API proxy and REST address.
type haReplica struct {
	name, identity, rest string
	proxy                *apiProxy
	p                    *proc
	starts               int
	// supervised: the pair restarts the replica when it exits, as kubelet
	// restarts a Deployment's container; off for the replica a scenario
	// acts on, until the scenario is done with it
	supervised bool
}

// haPair is the two replicas. Its supervisor restarts a supervised
// replica that exited (a leader that lost its lease exits 1 to come back
// as a standby) and counts those restarts: none is expected.
type haPair struct {
	c    *cluster
	reps []*haReplica
	fwd  *tcpForward

	mu       sync.Mutex // the replicas' p, identity, starts and supervised
	restarts []string   // "ha-b-1 (exit status 1)": replicas that exited unasked
	restore  func()     // chart mode: puts the chart's ConfigMap back
	// viaProxy: the replicas reach the API server through their proxies
	// (to be cut off, or to have their writes counted); else directly,
	// as kube-scheduler's pair does, so a takeover's requests pay no
	// extra hop through the harness
	viaProxy bool
	quit     chan struct{}
	done     chan struct{}
}

// startPair stops the single shim, writes the ConfigMap with haSettings,
// starts replica a, waits until it leads, starts replica b and waits
// until both list every node (b is a hot standby).
func startPair(ctx context.Context, c *cluster, viaProxy bool) (*haPair, error) {
	c.stop("shim")
	if c.chart == nil {
		if err := c.buildHA(ctx); err != nil {
			return nil, err
		}
	}
	if err := c.ensureNamespace(ctx, shimNamespace); err != nil {
		return nil, err
	}
	h := &haPair{c: c, viaProxy: viaProxy}
	if c.chart != nil {
		restore, err := c.installHA(ctx)
		if err != nil {
			return nil, fmt.Errorf("the chart's HA install: %w", err)
		}
		h.restore = restore
	}
	if err := c.writeShimConfig(ctx, c.shimConf); err != nil {
		return nil, err
	}
	if err := c.patchShimConfig(ctx, haSettings(c.o.lease, c.o.haQPS, c.o.haPace)); err != nil {
		return nil, err
	}
	err := c.kube.CoordinationV1().Leases(shimNamespace).Delete(ctx, haLease, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		h.stop()
		return nil, err
	}
	for i, name := range []string{"ha-a", "ha-b"} {
		proxy, err := startAPIProxy(c, c.port(90+i), c.chart == nil)
		if err != nil {
			h.stop()
			return nil, err
		}
		h.reps = append(h.reps, &haReplica{name: name, rest: "127.0.0.1:" + c.port(85+i), proxy: proxy})
	}
	if h.fwd, err = startForward(c.paddockREST(), h.reps[0].rest); err != nil {
		h.stop()
		return nil, err
	}
	for _, r := range h.reps {
		if err := h.start(r); err != nil {
			h.stop()
			return nil, err
		}
		if r == h.reps[0] {
			if err := h.waitLeader(ctx, r, time.Minute); err != nil {
				h.stop()
				return nil, err
			}
		}
	}
	for _, r := range h.reps {
		if err := h.waitHot(ctx, r); err != nil {
			h.stop()
			return nil, err
		}
		r.supervised = true
	}
	h.quit, h.done = make(chan struct{}), make(chan struct{})
	go h.supervise()
	return h, nil
}

// supervise restarts a supervised replica that exited, after half a
// second, as kubelet does a container of a Deployment.
func (h *haPair) supervise() {
	defer close(h.done)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	exitedAt := map[*haReplica]time.Time{}
	for {
		select {
		case <-h.quit:
			return
		case <-tick.C:
		}
		h.mu.Lock()
		for _, r := range h.reps {
			if !r.supervised || r.p == nil || !r.p.exited() {
				delete(exitedAt, r)
				continue
			}
			if _, ok := exitedAt[r]; !ok {
				exitedAt[r] = time.Now()
				h.restarts = append(h.restarts, fmt.Sprintf("%s (%v)", r.identity, r.p.err))
				logf("   %s exited by itself (%v): restarting it, as kubelet would", r.identity, r.p.err)
				continue
			}
			if time.Since(exitedAt[r]) >= 500*time.Millisecond {
				delete(exitedAt, r)
				if err := h.start(r); err != nil {
					logf("   restarting %s: %v", r.name, err)
				}
			}
		}
		h.mu.Unlock()
	}
}

// setSupervised sets whether the pair restarts r when it exits.
func (h *haPair) setSupervised(r *haReplica, on bool) {
	h.mu.Lock()
	r.supervised = on
	h.mu.Unlock()
}

// unasked returns the replicas that exited unasked so far.
func (h *haPair) unasked() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.restarts)
}

// byIdentity is the replica that runs as id, or nil.
func (h *haPair) byIdentity(id string) *haReplica {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.reps {
		if r.identity == id {
			return r
		}
	}
	return nil
}

// start (re)starts replica r with a new identity.
func (h *haPair) start(r *haReplica) error {
	r.starts++
	r.identity = fmt.Sprintf("%s-%d", r.name, r.starts)
	var p *proc
	var err error
	if h.c.chart != nil {
		p, err = h.startChartReplica(r)
	} else {
		var kc string
		server := h.c.apiServer()
		if h.viaProxy {
			server = r.proxy.url()
		}
		if kc, err = h.c.writeKubeconfig(r.name, server); err != nil {
			return err
		}
		env := []string{"KUBECONFIG=" + kc, "NAMESPACE=" + shimNamespace, "PADDOCK_REST_ADDR=" + r.rest,
			"PADDOCK_LEADER_ELECTION_IDENTITY=" + r.identity}
		p, err = startProc(h.c.work, r.name, filepath.Join(h.c.bin, "paddock-ha"), env)
	}
	if err != nil {
		return err
	}
	r.p = p
	h.c.procs[r.name] = p
	return nil
}

// holder is the Lease's holder and when the harness read it.
func (h *haPair) holder(ctx context.Context) (string, error) {
	l, err := h.c.kube.CoordinationV1().Leases(shimNamespace).Get(ctx, haLease, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	if l.Spec.HolderIdentity == nil {
		return "", nil
	}
	return *l.Spec.HolderIdentity, nil
}

func (h *haPair) leader(ctx context.Context) (*haReplica, error) {
	id, err := h.holder(ctx)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.reps {
		if r.identity == id && r.p != nil && !r.p.exited() {
			return r, nil
		}
	}
	return nil, fmt.Errorf("no running replica holds the lease (holder %q)", id)
}

// liveLeader waits until a running replica holds the lease (after a
// replica lost it and exited, the Lease names it until another acquires).
func (h *haPair) liveLeader(ctx context.Context) (*haReplica, error) {
	var r *haReplica
	err := waitFor(ctx, "a running replica holds the lease", time.Minute, 50*time.Millisecond, func() (bool, error) {
		var err error
		r, err = h.leader(ctx)
		return err == nil, err
	})
	return r, err
}

func (h *haPair) other(r *haReplica) *haReplica {
	if h.reps[0] == r {
		return h.reps[1]
	}
	return h.reps[0]
}

func (h *haPair) waitLeader(ctx context.Context, r *haReplica, timeout time.Duration) error {
	return waitFor(ctx, r.name+" leads", timeout, 50*time.Millisecond, func() (bool, error) {
		if r.p.exited() {
			return false, fmt.Errorf("%s exited: %v", r.name, r.p.err)
		}
		id, err := h.holder(ctx)
		return err == nil && id == r.identity, err
	})
}

// waitHot waits until replica r's Paddock lists every node schedulable:
// its shim is synced and registered.
func (h *haPair) waitHot(ctx context.Context, r *haReplica) error {
	return waitFor(ctx, r.name+" lists the nodes", 3*time.Minute, 250*time.Millisecond, func() (bool, error) {
		if r.p.exited() {
			return false, fmt.Errorf("%s exited: %v", r.name, r.p.err)
		}
		var nodes []restNode
		if err := h.c.restAt(ctx, r.rest, "/ws/v1/partition/default/nodes", &nodes); err != nil {
			return false, err
		}
		n := 0
		for _, nd := range nodes {
			if nd.Schedulable {
				n++
			}
		}
		return n >= h.c.o.nodes, fmt.Errorf("%d of %d nodes", n, h.c.o.nodes)
	})
}

func (h *haPair) stop() {
	if h.quit != nil {
		close(h.quit)
		<-h.done
	}
	for _, r := range h.reps {
		if r.p != nil {
			r.p.stop(10 * time.Second)
		}
		r.proxy.close()
	}
	if h.fwd != nil {
		h.fwd.close()
	}
	if h.restore != nil {
		h.restore()
	}
}

// takeover is what a failover measured: from the harness's act (kill,
// signal, cut) to the Lease changing hands, and to the first pod bound
// after that (by the new leader: the old one is dead, or fenced for a
// lease's duration by then).
type takeover struct {
	lease, firstBind time.Duration
	from, to         string
}

// measureTakeover does act and measures the takeover from holder old,
// on the pods t tracks.
func measureTakeover(ctx context.Context, t *tracker, old string, holder func(context.Context) (string, error), act func()) (takeover, error) {
	start := time.Now()
	act()
	var changed time.Time
	var to string
	err := waitFor(ctx, "the lease changes hands", 2*time.Minute, 20*time.Millisecond, func() (bool, error) {
		id, err := holder(ctx)
		if err != nil || id == "" || id == old {
			return false, err
		}
		changed, to = time.Now(), id
		return true, nil
	})
	if err != nil {
		return takeover{}, err
	}
	var first time.Time
	err = waitFor(ctx, "a pod bound by the new leader", 2*time.Minute, 10*time.Millisecond, func() (bool, error) {
		first = t.firstBoundAfter(changed)
		return !first.IsZero(), nil
	})
	if err != nil {
		return takeover{}, err
	}
	return takeover{lease: changed.Sub(start), firstBind: first.Sub(start), from: old, to: to}, nil
}

// firstBoundAfter is the earliest bind the tracker saw after at, or zero.
func (t *tracker) firstBoundAfter(at time.Time) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	var first time.Time
	for _, p := range t.pods {
		if p.bound.After(at) && (first.IsZero() || p.bound.Before(first)) {
			first = p.bound
		}
	}
	return first
}

// buildHA builds deploy/ha into the cache's bin as paddock-ha, inside the
// shim build the harness made (shim-build), unless -no-build finds it.
func (c *cluster) buildHA(ctx context.Context) error {
	out := filepath.Join(c.bin, "paddock-ha")
	if _, err := os.Stat(out); err == nil && c.o.skipBuild {
		return nil
	}
	shim := filepath.Join(c.o.cache, "shim-build", "shim")
	dst := filepath.Join(shim, "pkg", "cmd", "paddock-ha")
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := sh(ctx, "", "cp", "-r", filepath.Join(c.o.cache, "shim-build", "paddock", "deploy", "ha"), dst); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(dst, "go.mod"))
	return goCmd(ctx, shim, "build", "-o", out, "./pkg/cmd/paddock-ha")
}

// patchShimConfig sets keys of the shim's ConfigMap.
func (c *cluster) patchShimConfig(ctx context.Context, keys map[string]string) error {
	cms := c.kube.CoreV1().ConfigMaps(shimNamespace)
	cm, err := cms.Get(ctx, shimConfigMap, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for k, v := range keys {
		cm.Data[k] = v
	}
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// restAt is rest against the Paddock REST API at addr (a replica's own).
func (c *cluster) restAt(ctx context.Context, addr, path string, into any) error {
	return restJSON(ctx, "http://"+addr, path, into)
}

// dumpCore writes what each live replica's Paddock holds (its REST
// partition, queues, nodes and applications) to the working directory,
// for a takeover that placed nothing.
func (h *haPair) dumpCore(ctx context.Context, id string) {
	for _, r := range h.reps {
		if r.p == nil || r.p.exited() {
			continue
		}
		for _, path := range []string{"/ws/v1/partitions", "/ws/v1/partition/default/queues", "/ws/v1/partition/default/nodes", "/ws/v1/partition/default/applications"} {
			var v any
			if err := h.c.restAt(ctx, r.rest, path, &v); err != nil {
				logf("   dump %s %s: %v", r.identity, path, err)
				continue
			}
			b, _ := json.MarshalIndent(v, "", " ")
			name := filepath.Join(h.c.work, fmt.Sprintf("dump-%s-%s%s.json", id, r.identity, strings.ReplaceAll(path, "/", "_")))
			if err := os.WriteFile(name, b, 0o644); err != nil {
				logf("   dump: %v", err)
			}
		}
		logf("   dumped %s's core state to %s", r.identity, h.c.work)
	}
}
