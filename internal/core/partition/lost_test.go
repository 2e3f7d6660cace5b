package partition

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

// lostRig is a partition of deepTree with nodes n1 and n2 and application
// app1 in root.p2.l3, whose ask pod-1 is placed on n1.
func lostRig(t *testing.T, ask *app.Allocation) *Partition {
	t.Helper()
	p := mustPartition(t, deepTree)
	if err := p.AddNode("n1", vec(4000, 8<<30), resource.Vector{}, nil, true); err != nil {
		t.Fatal(err)
	}
	if err := p.AddApp(AppRequest{ID: "app1", Queue: "root.p2.l3", User: "alice"}, t0); err != nil {
		t.Fatal(err)
	}
	if err := p.AddAsk(ask, t0); err != nil {
		t.Fatal(err)
	}
	if got := p.Schedule(t0); got != 1 {
		t.Fatalf("placed %d, want 1", got)
	}
	if err := p.AddNode("n2", vec(4000, 8<<30), resource.Vector{}, nil, true); err != nil {
		t.Fatal(err)
	}
	p.Out.Take()
	return p
}

func mustVerify(t *testing.T, p *Partition) {
	t.Helper()
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
}

// The node of an allocation the RM is binding is removed; the RM then
// reports the failed binding: the ask comes back with its properties and
// is placed on another node.
func TestLostWithNodeRequeued(t *testing.T) {
	created := t0.Add(-time.Minute)
	tags := map[string]string{"kubernetes.io/meta/podName": "pod-1"}
	p := lostRig(t, &app.Allocation{Key: "pod-1", AppID: "app1", Res: vec(3000, 1<<30), Priority: 7,
		Created: created, Tags: tags, Originator: true, PreemptOther: true})
	now := t0.Add(10 * time.Second)
	if err := p.RemoveNode("n1", now); err != nil {
		t.Fatal(err)
	}
	out := p.Out.Take()
	if len(out.Released) != 1 || out.Released[0].AllocationKey != "pod-1" || out.Released[0].Termination != StoppedByRM {
		t.Fatalf("released %+v, want pod-1 stopped by the RM", out.Released)
	}
	if node, ok := p.Lost("app1", "pod-1", now); !ok || node != "n1" {
		t.Fatalf("lost: %q %v, want n1", node, ok)
	}
	mustVerify(t, p)

	now = now.Add(90 * time.Second) // the shim gives up binding
	did, err := p.Requeue("app1", "pod-1", now)
	if err != nil || did != RequeuedLost {
		t.Fatalf("requeue: %v %v, want the lost ask back", did, err)
	}
	mustVerify(t, p)
	a, _ := p.App("app1")
	x, ok := a.Allocation("pod-1")
	if !ok || !x.Pending() {
		t.Fatalf("pod-1 is not pending again")
	}
	if x.Res != vec(3000, 1<<30) || x.Priority != 7 || !x.Created.Equal(created) || x.Tags["kubernetes.io/meta/podName"] != "pod-1" ||
		!x.Originator || !x.PreemptOther || x.PreemptSelf {
		t.Errorf("the ask came back changed: %+v", x)
	}
	if live, _ := p.LostCount(); live != 0 {
		t.Errorf("%d lost allocations still recorded, want 0: a record is used once", live)
	}
	if a.State != app.Running {
		t.Errorf("app1 %s, want Running", a.State)
	}
	if got := p.Schedule(now); got != 1 || x.NodeID != "n2" {
		t.Fatalf("placed %d on %q, want 1 on n2", got, x.NodeID)
	}
	out = p.Out.Take()
	if len(out.Allocations) != 1 || out.Allocations[0].Key != "pod-1" || len(out.Released) != 0 || len(out.RejectedAllocs) != 0 {
		t.Errorf("outbox %+v, want the one new allocation of pod-1", out)
	}
	mustVerify(t, p)
	// a second failed binding is of the live allocation
	if did, err := p.Requeue("app1", "pod-1", now); err != nil || did != RequeuedPending {
		t.Errorf("requeue of the new allocation: %v %v", did, err)
	}
}

// An application whose only allocation went with its node is Completing,
// and stays so while the RM may still report the failed binding; then it
// runs again. Without that report it completes once the record expired.
func TestLostWithNodeHoldsCompleting(t *testing.T) {
	for _, report := range []bool{true, false} {
		p := lostRig(t, &app.Allocation{Key: "pod-1", AppID: "app1", Res: vec(1000, 1<<30)})
		now := t0.Add(time.Second)
		if err := p.RemoveNode("n1", now); err != nil {
			t.Fatal(err)
		}
		a, _ := p.App("app1")
		if a.State != app.Completing {
			t.Fatalf("app1 %s after its node went, want Completing", a.State)
		}
		for range 12 { // two minutes: past the Completing timeout
			now = now.Add(10 * time.Second)
			p.Tick(now)
		}
		if a.State != app.Completing {
			t.Fatalf("app1 %s two minutes on, want Completing while the RM may report the failed binding", a.State)
		}
		if report {
			if _, err := p.Requeue("app1", "pod-1", now); err != nil {
				t.Fatal(err)
			}
			if a.State != app.Running || a.PendingCount() != 1 {
				t.Fatalf("app1 %s with %d pending, want Running with pod-1", a.State, a.PendingCount())
			}
			mustVerify(t, p)
			continue
		}
		end := t0.Add(time.Second + LostLifetime)
		if next := p.NextTimer(); next.IsZero() || next.After(end) {
			t.Errorf("next timer %v, want by %v", next, end)
		}
		p.Tick(end)
		if a.State != app.Completed {
			t.Errorf("app1 %s when the record expired, want Completed", a.State)
		}
		if _, err := p.Requeue("app1", "pod-1", end); err == nil {
			t.Errorf("requeue after the record expired: want an error")
		}
		mustVerify(t, p)
	}
}

// The record is gone once its time is over, the RM released the key or the
// application, or the RM asked for the key again itself.
func TestLostForgotten(t *testing.T) {
	ask := func() *app.Allocation { return &app.Allocation{Key: "pod-1", AppID: "app1", Res: vec(1000, 1<<30)} }
	cases := []struct {
		name   string
		forget func(p *Partition, now time.Time)
	}{
		{"expired", func(p *Partition, now time.Time) {}},
		{"released", func(p *Partition, now time.Time) { p.ForgetLost("app1", "pod-1") }},
		{"application released", func(p *Partition, now time.Time) { p.ForgetLost("app1", "") }},
		{"application removed", func(p *Partition, now time.Time) {
			_ = p.RemoveApp("app1", now)
			_ = p.AddApp(AppRequest{ID: "app1", Queue: "root.p2.l3", User: "alice"}, now)
		}},
		{"asked again", func(p *Partition, now time.Time) {
			_ = p.AddAsk(ask(), now)
			p.Release("app1", "pod-1", now)
		}},
	}
	for _, c := range cases {
		p := lostRig(t, ask())
		// a second allocation keeps app1 running
		if err := p.AddAsk(&app.Allocation{Key: "pod-2", AppID: "app1", Res: vec(1000, 1<<30)}, t0); err != nil {
			t.Fatal(err)
		}
		p.Schedule(t0)
		now := t0.Add(time.Second)
		if err := p.RemoveNode("n1", now); err != nil {
			t.Fatal(err)
		}
		if c.name == "expired" {
			now = now.Add(LostLifetime)
		}
		c.forget(p, now)
		p.Tick(now)
		did, err := p.Requeue("app1", "pod-1", now)
		if err == nil {
			t.Errorf("%s: requeue %v, want an error", c.name, did)
		}
		if a, ok := p.App("app1"); ok {
			if _, known := a.Allocation("pod-1"); known {
				t.Errorf("%s: pod-1 came back", c.name)
			}
		}
		if _, ok := p.Lost("app1", "pod-1", now); ok {
			t.Errorf("%s: pod-1 still recorded", c.name)
		}
		mustVerify(t, p)
	}
}

// Allocations the RM has bound for sure, or that the scheduler was taking
// away, are not remembered.
func TestLostNotRecorded(t *testing.T) {
	// placed long before the removal
	p := lostRig(t, &app.Allocation{Key: "pod-1", AppID: "app1", Res: vec(1000, 1<<30)})
	_ = p.RemoveNode("n1", t0.Add(LostLifetime))
	if live, _ := p.LostCount(); live != 0 {
		t.Errorf("an allocation %v old was recorded", LostLifetime)
	}
	// placed by the RM itself (recovery)
	p = lostRig(t, &app.Allocation{Key: "pod-1", AppID: "app1", Res: vec(1000, 1<<30)})
	if err := p.AddAllocation(&app.Allocation{Key: "rec", AppID: "app1", NodeID: "n1", Res: vec(1000, 1<<30)}, t0); err != nil {
		t.Fatal(err)
	}
	_ = p.RemoveNode("n1", t0.Add(time.Second))
	if _, ok := p.Lost("app1", "rec", t0.Add(time.Second)); ok {
		t.Errorf("a recovered allocation was recorded")
	}
	if _, ok := p.Lost("app1", "pod-1", t0.Add(time.Second)); !ok {
		t.Errorf("pod-1 was not recorded")
	}
	// a preemption victim
	p = lostRig(t, &app.Allocation{Key: "pod-1", AppID: "app1", Res: vec(1000, 1<<30)})
	a, _ := p.App("app1")
	x, _ := a.Allocation("pod-1")
	x.Preempted = true
	_ = p.RemoveNode("n1", t0.Add(time.Second))
	if live, _ := p.LostCount(); live != 0 {
		t.Errorf("a preemption victim was recorded")
	}
}

// gangRig is a partition of deepTree with node n1 and gang application
// gang (a 1-minute placeholder timeout) whose two placeholders ph0 and ph1
// of task group tg are placed on n1.
func gangRig(t *testing.T) *Partition {
	t.Helper()
	p := mustPartition(t, deepTree)
	_ = p.AddNode("n1", vec(4000, 8<<30), resource.Vector{}, nil, true)
	if err := p.AddApp(AppRequest{ID: "gang", Queue: "root.p1.l2", User: "g", PlaceholderAsk: vec(2000, 2<<29),
		ExecutionTimeout: time.Minute}, t0); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := p.AddAsk(&app.Allocation{Key: fmt.Sprint("ph", i), AppID: "gang", Res: vec(1000, 1<<29), Placeholder: true, TaskGroup: "tg"}, t0); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.Schedule(t0); got != 2 {
		t.Fatalf("placed %d placeholders, want 2", got)
	}
	return p
}

// A placeholder that went with its node comes back as the same
// placeholder: the gang's counts are as before. Once the gang timed out,
// the RM is told to release it for the timeout instead.
func TestLostPlaceholder(t *testing.T) {
	for _, timedOut := range []bool{false, true} {
		p := gangRig(t)
		_ = p.AddNode("n2", vec(4000, 8<<30), resource.Vector{}, nil, true)
		now := t0.Add(time.Second)
		_ = p.RemoveNode("n1", now)
		p.Out.Take()
		a, _ := p.App("gang")
		if tg := a.TaskGroups["tg"]; tg.Count != 2 || tg.TimedOut != 2 {
			t.Fatalf("task group after the removal %+v, want 2 asked, 2 timed out", *tg)
		}
		if timedOut {
			now = now.Add(2 * time.Minute)
			p.Tick(now)
			if !a.GangTimedOut {
				t.Fatal("the gang did not time out")
			}
			p.Out.Take()
		}
		did, err := p.Requeue("gang", "ph0", now)
		if err != nil {
			t.Fatal(err)
		}
		out := p.Out.Take()
		if timedOut {
			if did != RequeuedTimedOut || len(out.Released) != 1 || out.Released[0].Termination != Timeout || out.Released[0].AllocationKey != "ph0" ||
				!out.Released[0].Again {
				t.Errorf("requeue %v, released %+v; want ph0 released for the timeout, counted before", did, out.Released)
			}
			if _, known := a.Allocation("ph0"); known {
				t.Errorf("ph0 came back in a timed-out gang")
			}
			mustVerify(t, p)
			continue
		}
		if did != RequeuedLost || len(out.Released) != 0 {
			t.Fatalf("requeue %v, released %+v", did, out.Released)
		}
		x, ok := a.Allocation("ph0")
		if !ok || !x.Pending() || !x.Placeholder || x.TaskGroup != "tg" {
			t.Fatalf("ph0 is not a pending placeholder of tg again")
		}
		if tg := a.TaskGroups["tg"]; tg.Count != 2 || tg.TimedOut != 1 {
			t.Errorf("task group %+v, want 2 asked, 1 timed out (ph1 was not reported)", *tg)
		}
		mustVerify(t, p)
	}
}

// A required-node ask whose node went comes back and waits for its node;
// it is never placed elsewhere, and is placed when the node returns.
func TestLostRequiredNode(t *testing.T) {
	p := lostRig(t, &app.Allocation{Key: "ds-1", AppID: "app1", Res: vec(1000, 1<<30), RequiredNode: "n1"})
	now := t0.Add(time.Second)
	_ = p.RemoveNode("n1", now)
	if did, err := p.Requeue("app1", "ds-1", now); err != nil || did != RequeuedLost {
		t.Fatalf("requeue %v %v", did, err)
	}
	a, _ := p.App("app1")
	x, _ := a.Allocation("ds-1")
	for range 3 {
		now = now.Add(10 * time.Second)
		p.Schedule(now)
		p.Tick(now)
	}
	if !x.Pending() || a.Why(x).Kind != app.RequiredNodeUnavailable {
		t.Fatalf("ds-1 on %q, pending for %v; want pending for its unknown node", x.NodeID, a.Why(x))
	}
	if live, _ := p.LostCount(); live != 0 {
		t.Errorf("%d records left: the ask came back once", live)
	}
	_ = p.AddNode("n1", vec(4000, 8<<30), resource.Vector{}, nil, true)
	if got := p.Schedule(now); got != 1 || x.NodeID != "n1" {
		t.Errorf("placed %d on %q, want 1 on n1", got, x.NodeID)
	}
	mustVerify(t, p)
}

// Bad input: a failed binding of a key never known changes nothing, and a
// flood of them grows nothing.
func TestLostUnknownKeysChangeNothing(t *testing.T) {
	p := lostRig(t, &app.Allocation{Key: "pod-1", AppID: "app1", Res: vec(1000, 1<<30)})
	now := t0.Add(time.Second)
	_ = p.RemoveNode("n1", now)
	p.Out.Take()
	a, _ := p.App("app1")
	flood := func(n int) {
		for i := range n {
			for _, k := range [][2]string{{"app1", fmt.Sprint("ghost-", i)}, {fmt.Sprint("noapp-", i), "pod-1"}, {"app1", ""}} {
				if did, err := p.Requeue(k[0], k[1], now); err == nil {
					t.Fatalf("requeue %s/%s: %v, want an error", k[0], k[1], did)
				}
			}
		}
	}
	flood(1000) // warm up
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	flood(100_000)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 1<<20 {
		t.Errorf("the heap grew %d bytes over 300,000 failed bindings of unknown keys", grew)
	}
	if live, _ := p.LostCount(); live != 1 || a.PendingCount() != 0 || !p.Out.Empty() {
		t.Errorf("%d records, %d pending, outbox %+v; want pod-1 still recorded and nothing else", live, a.PendingCount(), p.Out)
	}
	mustVerify(t, p)
	if _, err := p.Requeue("app1", "pod-1", now); err != nil {
		t.Errorf("pod-1 after the flood: %v", err)
	}
}

// Bad input: nodes full of allocations removed over and over keep at most
// the record's limit, the oldest forgotten first.
func TestLostBounded(t *testing.T) {
	p := mustPartition(t, deepTree)
	p.lost.limit = 50
	if err := p.AddApp(AppRequest{ID: "app1", Queue: "root.p2.l3", User: "alice"}, t0); err != nil {
		t.Fatal(err)
	}
	now := t0
	key := 0
	for round := range 40 {
		n := fmt.Sprint("n", round)
		_ = p.AddNode(n, vec(100_000, 100<<30), resource.Vector{}, nil, true)
		for range 20 {
			key++
			if err := p.AddAsk(&app.Allocation{Key: fmt.Sprint("pod-", key), AppID: "app1", Res: vec(1000, 1<<30)}, now); err != nil {
				t.Fatal(err)
			}
		}
		if got := p.Schedule(now); got != 20 {
			t.Fatalf("placed %d, want 20", got)
		}
		now = now.Add(time.Second)
		_ = p.RemoveNode(n, now)
		if round%3 == 0 {
			p.ForgetLost("app1", fmt.Sprint("pod-", key)) // the RM released one
		}
		mustVerify(t, p)
		if live, _ := p.LostCount(); live > 50 {
			t.Fatalf("round %d: %d records, over the limit 50", round, live)
		}
		if len(p.lost.fifo)-p.lost.head > 100 {
			t.Fatalf("round %d: the FIFO holds %d entries", round, len(p.lost.fifo)-p.lost.head)
		}
	}
	// 800 recorded, 14 released by the RM (the last one after the last
	// round's removal), 49 left
	live, evicted := p.LostCount()
	if live != 49 || evicted != 800-14-49 {
		t.Errorf("%d live, %d forgotten early; want 49, %d", live, evicted, 800-14-49)
	}
	if _, err := p.Requeue("app1", "pod-1", now); err == nil {
		t.Errorf("the oldest record was not the one forgotten")
	}
	if did, err := p.Requeue("app1", fmt.Sprint("pod-", key-1), now); err != nil || did != RequeuedLost {
		t.Errorf("the newest record: %v %v", did, err)
	}
	p.Tick(now.Add(LostLifetime))
	if live, _ := p.LostCount(); live != 0 {
		t.Errorf("%d records after their time", live)
	}
	mustVerify(t, p)
}

// A placeholder the gang's timeout released while the RM was binding it:
// the RM's failed binding completes the release (the RM already heard
// TIMEOUT and removes the pod) instead of bringing the placeholder back as
// a pending ask that a timed-out gang never places and that would keep
// its application from completing.
func TestTimedOutPlaceholderNotRequeued(t *testing.T) {
	p := gangRig(t)
	p.Out.Take()
	now := t0.Add(2 * time.Minute)
	p.Tick(now)
	a, _ := p.App("gang")
	if !a.GangTimedOut {
		t.Fatal("the gang did not time out")
	}
	if out := p.Out.Take(); len(out.Released) != 2 || out.Released[0].Termination != Timeout {
		t.Fatalf("released at the timeout %+v, want both placeholders with TIMEOUT", out.Released)
	}
	did, err := p.Requeue("gang", "ph0", now)
	if err != nil {
		t.Fatal(err)
	}
	if did != RequeuedReleased {
		t.Errorf("requeue %v, want the release completed (%v)", did, RequeuedReleased)
	}
	if x, ok := a.Allocation("ph0"); ok {
		t.Errorf("ph0 still known after its failed binding: pending %v", x.Pending())
	}
	if out := p.Out.Take(); len(out.Released) != 0 || len(out.Allocations) != 0 {
		t.Errorf("the RM was told again: released %+v, allocations %+v", out.Released, out.Allocations)
	}
	n, _ := p.Node("n1")
	if got := n.Allocated; got != vec(1000, 1<<29) {
		t.Errorf("n1 allocated %v, want only ph1's %v until the RM confirms it", got, vec(1000, 1<<29))
	}
	if p.Schedule(now) != 0 {
		t.Error("something was placed after the timed-out gang's failed binding")
	}
	mustVerify(t, p)
}
