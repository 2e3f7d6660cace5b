package partition

import (
	"fmt"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

// TestRMAwayLeavesAsksAlone checks that a node check answering
// ErrRMUnavailable (an RM whose callback stalled) is not taken for a veto:
// the pass ends at once without asking again, the asks it did not place
// keep their state (no NoNodeFits, no waiting report for the autoscaler,
// no refusal counted), and they are placed once the RM answers again.
func TestRMAwayLeavesAsksAlone(t *testing.T) {
	p := sixAsksFourNodes(t)
	away, calls := false, 0
	p.SetPredicate(func(x *app.Allocation, nodeID string, allocate bool) error {
		calls++
		if calls > 2 {
			away = true
		}
		if away {
			return fmt.Errorf("stalled: %w", ErrRMUnavailable)
		}
		return nil
	})
	if got := p.Schedule(t0); got != 2 {
		t.Fatalf("allocated %d before the RM went away, want 2", got)
	}
	if calls != 3 {
		t.Fatalf("the RM was asked %d times, want 3: once away, it is not asked again in the pass", calls)
	}
	a, _ := p.App("app1")
	if a.PendingCount() != 4 {
		t.Fatalf("pending %d, want 4", a.PendingCount())
	}
	for i := 2; i < 6; i++ {
		x, _ := a.Allocation(fmt.Sprint("k", i))
		if r := a.Why(x); r.Kind == app.NoNodeFits {
			t.Errorf("%s: reason %v after the RM went away: an ask that fits every node is not NoNodeFits", x.Key, r)
		}
	}
	if len(p.vetoes) != 0 {
		t.Errorf("refusals counted while the RM was away: %v", p.vetoes)
	}
	out := p.Out.Take()
	if len(out.Waiting) != 0 {
		t.Fatalf("%d asks reported as waiting for cluster resources while 4 nodes fit them", len(out.Waiting))
	}
	// still away later: nothing changes, nothing is reported
	later := t0.Add(RMAwayRetry)
	p.Schedule(later)
	if out := p.Out.Take(); len(out.Waiting) != 0 || len(out.Allocations) != 0 {
		t.Fatalf("while away: %d allocations, %d waiting reports", len(out.Allocations), len(out.Waiting))
	}
	// back: the asks are placed without anything else changing
	away, calls = false, -100
	if got := p.Schedule(later.Add(RMAwayRetry)); got != 4 {
		t.Fatalf("allocated %d once the RM is back, want 4", got)
	}
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
}

// TestWaitingReportedWithinTwoSeconds checks the autoscaling signal on an
// otherwise idle partition: an ask that fits no node and comes within the
// report interval of the previous report is still reported, by the pass
// the partition runs by itself once the interval is over.
func TestWaitingReportedWithinTwoSeconds(t *testing.T) {
	p := mustPartition(t, twoQueues)
	if err := p.AddNode("n0", vec(2000, 4096), resource.Vector{}, nil, true); err != nil {
		t.Fatal(err)
	}
	if err := p.AddApp(AppRequest{ID: "app1", Queue: "root.b", User: "alice"}, t0); err != nil {
		t.Fatal(err)
	}
	reported := map[string]time.Time{}
	step := func(now time.Time) {
		p.Schedule(now)
		for _, w := range p.Out.Take().Waiting {
			if _, ok := reported[w.AllocationKey]; ok {
				t.Errorf("%s reported twice", w.AllocationKey)
			}
			reported[w.AllocationKey] = now
		}
	}
	arrive := map[string]time.Time{"big0": t0, "big1": t0.Add(300 * time.Millisecond)}
	for _, k := range []string{"big0", "big1"} {
		if err := p.AddAsk(&app.Allocation{Key: k, AppID: "app1", Res: vec(3000, 100)}, arrive[k]); err != nil {
			t.Fatal(err)
		}
		step(arrive[k])
	}
	// nothing else happens: the owner steps the partition every 100 ms
	for now := arrive["big1"]; now.Before(t0.Add(3 * time.Second)); now = now.Add(100 * time.Millisecond) {
		step(now)
	}
	for k, at := range arrive {
		got, ok := reported[k]
		if !ok {
			t.Errorf("%s (arrived at +%s) never reported as waiting for cluster resources", k, at.Sub(t0))
			continue
		}
		if d := got.Sub(at); d > 2*time.Second {
			t.Errorf("%s reported %s after it arrived, want within 2 s", k, d)
		}
	}
}

// sixAsksFourNodes returns a partition with events flowing (refusals
// counted), four nodes of 4 CPUs and application app1 in root.b asking
// for six allocations of 1 CPU (k0..k5), none placed yet.
func sixAsksFourNodes(t *testing.T) *Partition {
	t.Helper()
	p := mustPartition(t, twoQueues)
	p.noEvents = false
	for i := range 4 {
		if err := p.AddNode(fmt.Sprint("n", i), vec(4000, 4096), resource.Vector{}, nil, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.AddApp(AppRequest{ID: "app1", Queue: "root.b", User: "alice"}, t0); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if err := p.AddAsk(&app.Allocation{Key: fmt.Sprint("k", i), AppID: "app1", Res: vec(1000, 100)}, t0); err != nil {
			t.Fatal(err)
		}
	}
	return p
}
