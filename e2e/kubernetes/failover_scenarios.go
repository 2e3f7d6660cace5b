package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// haWave is the wave of a failover scenario: the run's pods, over at most
// 10 namespaces.
func (c *cluster) haWave(id string) wave {
	return wave{id: id, scheduler: shimScheduler, pods: c.o.pods, namespaces: min(c.o.namespaces, 10)}
}

// failoverCrashScenario: SIGKILL the leader when a third of a wave is
// bound; the standby takes over once the lease expires. A gang created
// before the kill checks that no placeholder is made twice.
func failoverCrashScenario(ctx context.Context, c *cluster) error {
	return failoverScenario(ctx, c, failover{id: "fc", what: "crash (SIGKILL)", act: func(r *haReplica) { r.p.crash() }})
}

// failoverGracefulScenario: SIGTERM the leader, as a rolling update does;
// it fences, releases the lease and exits 0.
func failoverGracefulScenario(ctx context.Context, c *cluster) error {
	return failoverScenario(ctx, c, failover{id: "fg", what: "graceful (SIGTERM)", act: func(r *haReplica) { r.p.term() }})
}

// rollingUpdateScenario: a Deployment's rolling update of the pair during
// a wave: the standby is replaced first (SIGTERM, a new replica that
// starts while the leader binds, as a rollout's new pod does), then the
// leader gets SIGTERM and the replica started mid-wave takes over.
func rollingUpdateScenario(ctx context.Context, c *cluster) error {
	return failoverScenario(ctx, c, failover{id: "ru", what: "rolling update (SIGTERM)", act: func(r *haReplica) { r.p.term() }, held: 0.5})
}

// replaceStandby stops the standby of a pair (SIGTERM, as a rollout
// replaces its pod), starts a new one and waits until it is hot.
func (h *haPair) replaceStandby(ctx context.Context) error {
	leader, err := h.liveLeader(ctx)
	if err != nil {
		return err
	}
	sb := h.other(leader)
	h.setSupervised(sb, false)
	sb.p.stop(30 * time.Second)
	logf("   standby %s stopped (%v); starting its replacement during the wave", sb.identity, sb.p.err)
	h.mu.Lock()
	err = h.start(sb)
	h.mu.Unlock()
	if err != nil {
		return err
	}
	h.setSupervised(sb, true)
	return h.waitHot(ctx, sb)
}

// failover is one failover scenario's shape.
type failover struct {
	id, what string // the wave's id; the act, as the log names it
	act      func(*haReplica)
	// after, when set, replaces the default aftermath (the old leader
	// exits and comes back as a standby)
	after func(h *haPair, old, next *haReplica) error
	// held: the share of the wave's Deployment pods held back until the
	// standby has been replaced mid-wave (a rollout); 0 for none
	held float64
	// viaProxy: the replicas go through the harness's proxies (to be cut)
	viaProxy bool
}

// failoverScenario runs a wave and a gang on a pair, does act to the
// leader when a third of the wave is bound, measures the takeover, runs
// after (when set) and checks the wave and the gang.
func failoverScenario(ctx context.Context, c *cluster, f failover) error {
	h, err := startPair(ctx, c, f.viaProxy)
	if err != nil {
		return err
	}
	defer h.stop()
	w := c.haWave(f.id)
	w.held = f.held
	t, err := c.track(ctx, "wave="+w.id)
	if err != nil {
		return err
	}
	defer t.close()
	gangNS, gangApp := f.id+"-gang", f.id+"-gang-app"
	if err := c.ensureNamespace(ctx, gangNS); err != nil {
		return err
	}
	ph, err := c.track(ctx, placeholderAppLabel+"="+gangApp)
	if err != nil {
		return err
	}
	defer ph.close()
	for i := range 3 {
		if err := c.createPod(ctx, gangPod(gangNS, gangApp, fmt.Sprintf("real-%d", i), 4, "200m", 60, "Soft")); err != nil {
			return err
		}
	}
	// the wave and the gang go whatever the checks find: the next
	// scenario needs the room
	defer func() {
		if err := c.deleteNamespaceNow(ctx, gangNS); err != nil {
			logf("   deleting %s: %v", gangNS, err)
		}
		c.dropWave(ctx, w)
	}()
	if err := c.createWave(ctx, w); err != nil {
		return err
	}
	if w.held > 0 {
		// the rollout: the standby is replaced while the leader runs the
		// wave's first part; the rest comes once it is hot, so that the
		// replica started mid-wave has pods to take over
		if err := t.waitBound(ctx, (w.pods-w.heldBack())*2/3, c.o.waveWait, nil); err != nil {
			return err
		}
		if err := h.replaceStandby(ctx); err != nil {
			return err
		}
		if err := c.scaleWave(ctx, w); err != nil {
			return err
		}
		logf("   %d more pods of the wave's Deployments created", w.heldBack())
		if err := t.waitBound(ctx, t.boundCount()+w.heldBack()/5, c.o.waveWait, nil); err != nil {
			return err
		}
	} else if err := t.waitBound(ctx, w.pods/3, c.o.waveWait, nil); err != nil {
		return err
	}
	old, err := h.liveLeader(ctx)
	if err != nil {
		return err
	}
	// the act measures a failover to a hot standby: a standby that the
	// pair restarted during the wave (a leader that lost its lease exits)
	// may still be listing the cluster
	if err := h.waitHot(ctx, h.other(old)); err != nil {
		return err
	}
	h.setSupervised(old, false) // the scenario acts on it: no restart behind its back
	bound := t.boundCount()
	if left := w.pods - bound; left < w.pods/10 {
		// waiting for a hot standby let the leader bind nearly all the
		// wave: no takeover can be timed on it
		return fmt.Errorf("void: only %d of %d pods left unbound at the act", left, w.pods)
	}
	to, err := measureTakeover(ctx, t, old.identity, h.holder, func() { f.act(old) })
	if err != nil {
		h.dumpCore(ctx, f.id)
		return err
	}
	next := h.byIdentity(to.to)
	if next == nil || next == old {
		return fmt.Errorf("the lease went to %q, not the other replica", to.to)
	}
	h.fwd.set(next.rest)
	logf("   %s of %s with %d of %d bound: lease to %s after %s, first bind by the new leader after %s",
		f.what, old.identity, bound, w.pods, to.to, to.lease.Round(time.Millisecond), to.firstBind.Round(time.Millisecond))
	if f.after != nil {
		if err := f.after(h, old, next); err != nil {
			return err
		}
	} else {
		// the old leader's pod comes back, as a standby, as its
		// Deployment brings it back after a crash or a rolling update
		if err := old.p.wait(20 * time.Second); err != nil {
			return fmt.Errorf("the old leader did not exit: %w", err)
		}
		logf("   the old leader exited (%v); restarted, it is a standby", old.p.err)
		h.mu.Lock()
		err := h.start(old)
		h.mu.Unlock()
		if err != nil {
			return err
		}
		h.setSupervised(old, true)
	}
	if err := t.waitBound(ctx, w.pods, c.o.waveWait, nil); err != nil {
		return err
	}
	h.report()
	return errors.Join(c.checkFailover(ctx, t, h, w.pods), c.checkGang(ctx, ph, gangNS, gangApp, 4, 3), h.checkRBAC())
}

// report logs the replicas that exited unasked (each lost its lease) and
// the lapses their logs show (renewals that came after the renew
// deadline: the core paused until they came).
func (h *haPair) report() {
	lapses := 0
	for _, r := range h.reps {
		n, _ := h.c.countLog(r.name, "Lease renewed after the renew deadline")
		lapses += n
	}
	u := h.unasked()
	logf("   replicas that exited unasked: %d %v; renewals after the renew deadline (pauses): %d", len(u), u, lapses)
}

// checkFailover checks a wave after a takeover by leader: every pod
// bound once (none moved to a second node), no node over its room, no
// bind refused by the API server in the new leader's log, and its
// Paddock's usage equal to the API server's.
func (c *cluster) checkFailover(ctx context.Context, t *tracker, h *haPair, pods int) error {
	r := t.result()
	if len(r.rebound) > 0 {
		return fmt.Errorf("pods bound to a second node: %v", r.rebound)
	}
	if err := c.checkRoom(ctx); err != nil {
		return err
	}
	// the leader's usage: a standby holds only what its shim submitted
	// before it last led, so the check follows the Lease when the pair
	// changed leaders after the measured takeover
	for try := 0; ; try++ {
		l, err := h.liveLeader(ctx)
		if err != nil {
			return err
		}
		h.fwd.set(l.rest)
		err = c.checkPaddockUsage(ctx, time.Minute)
		if now, _ := h.liveLeader(ctx); err == nil || now == l || try == 2 {
			if err != nil {
				return err
			}
			break
		}
	}
	// a bind refused because the pod is bound already is a second
	// leader's bind; a cut-off leader's binds fail without reaching the
	// API server, and are not refusals
	for _, r := range h.reps {
		refused, err := c.countLogLines(r.name, "failed to bind pod", "already assigned")
		if err != nil {
			return err
		}
		if refused > 0 {
			return fmt.Errorf("%s had %d binds refused by the API server: the pod was bound already", r.name, refused)
		}
	}
	logf("   all %d pods bound once each, no bind refused, no node over its room; the leader's usage matches", pods)
	return nil
}

// checkGang checks that the gang's placeholders were made once: members
// placeholders at most were ever created, and its real pods are bound.
func (c *cluster) checkGang(ctx context.Context, ph *tracker, ns, app string, members, real int) error {
	err := waitFor(ctx, "the gang's real pods bound", 2*time.Minute, 500*time.Millisecond, func() (bool, error) {
		_, pods, err := c.gangState(ctx, ns, app)
		if err != nil {
			return false, err
		}
		n := 0
		for _, node := range pods {
			if node != "" {
				n++
			}
		}
		return n == real, fmt.Errorf("%d of %d real pods bound", n, real)
	})
	if err != nil {
		return err
	}
	ph.mu.Lock()
	created := len(ph.pods)
	ph.mu.Unlock()
	if created > members {
		return fmt.Errorf("%d placeholders created for a gang of %d: duplicated", created, members)
	}
	logf("   gang: %d placeholders created for %d members (none duplicated), %d real pods bound", created, members, real)
	return nil
}

// wait waits up to d for the process to exit.
func (p *proc) wait(d time.Duration) error {
	select {
	case <-p.done:
		return nil
	case <-time.After(d):
		return fmt.Errorf("%s still running after %s", p.name, d)
	}
}

// partitionScenario: cut the leader off the API server. It must stop
// binding before its lease can expire (no bind of it lands after the
// standby holds the lease), the standby takes over, and when the cut
// heals the old leader, restarted as kubelet would after its non-zero
// exit, comes back as a standby.
func partitionScenario(ctx context.Context, c *cluster) error {
	cut := func(r *haReplica) { r.proxy.partition(true) }
	return failoverScenario(ctx, c, failover{id: "pt", what: "cut off", act: cut, viaProxy: true, after: func(h *haPair, old, next *haReplica) error {
		// the cut leader fenced itself at its renew deadline and exits 1
		if err := old.p.wait(30 * time.Second); err != nil {
			return fmt.Errorf("the cut-off leader did not exit: %w", err)
		}
		fenced, _ := c.countLog(old.name, "Leadership lost")
		logf("   the cut-off leader exited (%v), fenced: %v", old.p.err, fenced > 0)
		if old.p.err == nil {
			return fmt.Errorf("the cut-off leader exited 0; want non-zero, to come back as a standby")
		}
		old.proxy.partition(false)
		h.mu.Lock()
		err := h.start(old)
		h.mu.Unlock()
		if err != nil {
			return err
		}
		if err := h.waitHot(ctx, old); err != nil {
			return err
		}
		h.setSupervised(old, true)
		id, err := h.holder(ctx)
		switch {
		case err != nil:
			return fmt.Errorf("after the heal: reading the lease: %w", err)
		case id == next.identity:
			logf("   healed: %s is back as a standby, %s leads", old.identity, next.identity)
		case lostLease(h.unasked(), next.identity):
			// a second, ordinary takeover: the new leader lost the lease
			// by itself (fenced, exited 1) after the healed replica was
			// back as a standby; the wave's checks still hold
			logf("   healed: %s is back as a standby; %s lost the lease since (exited by itself), %s leads",
				old.identity, next.identity, id)
		default:
			return fmt.Errorf("after the heal the lease is held by %q, want %s (which did not lose it)", id, next.identity)
		}
		return nil
	}})
}

// lostLease reports whether identity is among the replicas that exited by
// themselves (haPair.unasked: "identity (exit status 1)").
func lostLease(unasked []string, identity string) bool {
	for _, u := range unasked {
		if strings.HasPrefix(u, identity+" (") {
			return true
		}
	}
	return false
}

// standbyQuietScenario: over a whole wave, the standby writes nothing to
// the API server but events (its Lease it only reads until it acquires
// it); its CPU and memory are reported next to the leader's.
func standbyQuietScenario(ctx context.Context, c *cluster) error {
	h, err := startPair(ctx, c, true) // the proxies count the writes
	if err != nil {
		return err
	}
	defer h.stop()
	leader, err := h.liveLeader(ctx)
	if err != nil {
		return err
	}
	standby := h.other(leader)
	leader.proxy.takeWrites()
	standby.proxy.takeWrites()
	lu0, err := leader.p.usage()
	if err != nil {
		return err
	}
	su0, err := standby.p.usage()
	if err != nil {
		return err
	}
	w := c.haWave("sq")
	defer c.dropWave(ctx, w)
	if _, err := c.runWave(ctx, w, c.stallGuard(w)); err != nil {
		return err
	}
	lu, err := leader.p.usage()
	if err != nil {
		return err
	}
	su, err := standby.p.usage()
	if err != nil {
		return err
	}
	lw, sw := leader.proxy.takeWrites(), standby.proxy.takeWrites()
	logf("   leader %s writes: %s", leader.identity, formatWrites(lw))
	logf("   standby %s writes: %s", standby.identity, formatWrites(sw))
	logf("   CPU over the wave: leader %s, standby %s; peak RSS: leader %d MiB, standby %d MiB",
		(lu.cpu - lu0.cpu).Round(10*time.Millisecond), (su.cpu - su0.cpu).Round(10*time.Millisecond), lu.peakRSS>>20, su.peakRSS>>20)
	for k := range sw {
		if !strings.HasSuffix(k, " events") {
			return fmt.Errorf("the standby wrote %s %d times", k, sw[k])
		}
	}
	return nil
}

// kubeSchedulerHAScenario: kube-scheduler with two replicas and
// --leader-elect, SIGKILL the leader when a third of a wave is bound, and
// time the kill to the first bind by the new leader, once with its default
// lease settings (15 s, 10 s, 2 s) and once with the failover scenarios'
// (-lease).
func kubeSchedulerHAScenario(ctx context.Context, c *cluster) error {
	c.stop("kube-scheduler")
	for _, s := range []struct {
		name                string
		lease, renew, retry time.Duration
	}{
		{"default", 15 * time.Second, 10 * time.Second, 2 * time.Second},
		{"the failover scenarios'", c.o.lease.duration, c.o.lease.renew, c.o.lease.retry},
	} {
		if err := c.kubeSchedulerFailover(ctx, s.name, s.lease, s.renew, s.retry); err != nil {
			return fmt.Errorf("kube-scheduler, %s lease: %w", s.name, err)
		}
	}
	return nil
}

func (c *cluster) kubeSchedulerFailover(ctx context.Context, name string, lease, renew, retry time.Duration) error {
	const ns, leaseName = "kube-system", "kube-scheduler"
	if err := c.ensureNamespace(ctx, ns); err != nil {
		return err
	}
	err := c.kube.CoordinationV1().Leases(ns).Delete(ctx, leaseName, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	conf := filepath.Join(c.work, "kube-scheduler-ha.yaml")
	y := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %s
  qps: %d
  burst: %d
leaderElection:
  leaderElect: true
  leaseDuration: %s
  renewDeadline: %s
  retryPeriod: %s
  resourceLock: leases
  resourceName: %s
  resourceNamespace: %s
`, c.pki.kubeconfig, c.o.qps, c.o.qps, lease, renew, retry, leaseName, ns)
	if err := os.WriteFile(conf, []byte(y), 0o644); err != nil {
		return err
	}
	names := []string{"kube-scheduler-a", "kube-scheduler-b"}
	startKS := func(n string) (*proc, error) {
		return startProc(c.work, n, filepath.Join(c.bin, "kube-scheduler"), nil, "--config="+conf, "--secure-port=0", "--v=1")
	}
	procs := map[string]*proc{}
	// the logs go on from an earlier measurement: the leader is the one
	// whose acquisitions grew (client-go writes "Successfully", older
	// versions "successfully")
	const acquired = "uccessfully acquired lease"
	before := map[string]int{}
	for _, n := range names {
		before[n], _ = c.countLog(n, acquired)
	}
	defer func() {
		for _, p := range procs {
			p.stop(10 * time.Second)
		}
	}()
	holder := func(ctx context.Context) (string, error) {
		l, err := c.kube.CoordinationV1().Leases(ns).Get(ctx, leaseName, metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return "", err
		}
		return *l.Spec.HolderIdentity, nil
	}
	for _, n := range names {
		p, err := startKS(n)
		if err != nil {
			return err
		}
		procs[n] = p
		if n == names[0] {
			if err := waitFor(ctx, n+" leads", time.Minute, 100*time.Millisecond, func() (bool, error) {
				id, err := holder(ctx)
				return id != "", err
			}); err != nil {
				return err
			}
		}
	}
	if err := c.probe(ctx, kubeScheduler); err != nil {
		return err
	}
	old, err := holder(ctx)
	if err != nil {
		return err
	}
	// the identity is host_uuid: the leader is the one that logged it
	var leader string
	for _, n := range names {
		if k, _ := c.countLog(n, acquired); k > before[n] {
			leader = n
		}
	}
	if leader == "" {
		return fmt.Errorf("no kube-scheduler logged acquiring the lease")
	}
	// the pair is supervised as kubelet would: the killed leader comes
	// back, and a replica that exits by itself (a leader that lost its
	// lease exits) is restarted half a second later and counted
	var mu sync.Mutex
	var unasked []string
	killed := ""
	supervise, stopSupervising := context.WithCancel(ctx)
	supervised := make(chan struct{})
	go func() {
		defer close(supervised)
		for supervise.Err() == nil {
			mu.Lock()
			for _, n := range names {
				if !procs[n].exited() {
					continue
				}
				if n == killed {
					killed = ""
				} else {
					unasked = append(unasked, n)
				}
				if p, err := startKS(n); err == nil {
					procs[n] = p
				}
			}
			mu.Unlock()
			select {
			case <-supervise.Done():
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	defer func() { stopSupervising(); <-supervised }()
	w := wave{id: "ks" + strings.ToLower(name[:1]), scheduler: kubeScheduler, pods: c.o.pods, namespaces: min(c.o.namespaces, 10)}
	t, err := c.track(ctx, "wave="+w.id)
	if err != nil {
		return err
	}
	defer t.close()
	defer c.dropWave(ctx, w)
	if err := c.createWave(ctx, w); err != nil {
		return err
	}
	if err := t.waitBound(ctx, w.pods/3, c.o.waveWait, nil); err != nil {
		return err
	}
	mu.Lock()
	if len(unasked) > 0 {
		logf("   kube-scheduler (%s lease): replicas that exited unasked before the kill: %v; the measurement below is of whichever leads now", name, unasked)
	}
	mu.Unlock()
	bound := t.boundCount()
	to, err := measureTakeover(ctx, t, old, holder, func() {
		mu.Lock()
		defer mu.Unlock()
		killed = leader
		procs[leader].kill()
	})
	if err != nil {
		return err
	}
	logf("   kube-scheduler (%s lease %s/%s/%s): SIGKILL with %d of %d bound: lease changed after %s, first bind by the new leader after %s",
		name, lease, renew, retry, bound, w.pods, to.lease.Round(time.Millisecond), to.firstBind.Round(time.Millisecond))
	err = t.waitBound(ctx, w.pods, c.o.waveWait, nil)
	stopSupervising()
	<-supervised // procs and unasked are the scenario's again
	logf("   kube-scheduler (%s lease): replicas that exited unasked: %d %v", name, len(unasked), unasked)
	if err != nil {
		return err
	}
	if r := t.result(); len(r.rebound) > 0 {
		return fmt.Errorf("pods bound to a second node: %v", r.rebound)
	}
	return c.checkRoom(ctx)
}

// dropWave deletes a wave, logging a failure: a scenario's cleanup,
// whatever its checks found.
func (c *cluster) dropWave(ctx context.Context, w wave) {
	if err := c.deleteWave(ctx, w); err != nil {
		logf("   deleting wave %s: %v", w.id, err)
	}
}

// countLogLines counts the lines of a program's log that hold every one
// of subs.
func (c *cluster) countLogLines(name string, subs ...string) (int, error) {
	b, err := os.ReadFile(filepath.Join(c.work, "logs", name+".log"))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		all := true
		for _, s := range subs {
			all = all && strings.Contains(line, s)
		}
		if all {
			n++
		}
	}
	return n, nil
}
