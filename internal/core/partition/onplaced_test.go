package partition

import (
	"fmt"
	"slices"
	"testing"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

// TestOnPlacedFollowsEveryPlacement checks the placement function's
// contract: it is called once after every placement, with the allocation
// applied and in the outbox, before the RM is asked about the next ask's
// node; and not at all once removed.
func TestOnPlacedFollowsEveryPlacement(t *testing.T) {
	p := mustPartition(t, twoQueues)
	for i := range 2 {
		if err := p.AddNode(fmt.Sprint("n", i), vec(4000, 4096), resource.Vector{}, nil, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.AddApp(AppRequest{ID: "app1", Queue: "root.b", User: "alice"}, t0); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := p.AddAsk(&app.Allocation{Key: fmt.Sprint("k", i), AppID: "app1", Res: vec(1000, 100)}, t0); err != nil {
			t.Fatal(err)
		}
	}
	var log []string
	p.SetPredicate(func(x *app.Allocation, nodeID string, allocate bool) error {
		log = append(log, "asked "+x.Key)
		return nil
	})
	p.SetOnPlaced(func() {
		out := p.Out.Allocations
		last := out[len(out)-1]
		if last.NodeID == "" || last.Pending() {
			t.Errorf("%s is in the outbox but not applied", last.Key)
		}
		log = append(log, fmt.Sprintf("placed %s (%d in the outbox)", last.Key, len(out)))
	})
	if got := p.Schedule(t0); got != 5 {
		t.Fatalf("allocated %d, want 5", got)
	}
	var want []string
	for i := range 5 {
		want = append(want, fmt.Sprint("asked k", i), fmt.Sprintf("placed k%d (%d in the outbox)", i, i+1))
	}
	if !slices.Equal(log, want) {
		t.Fatalf("calls:\n%q\nwant:\n%q", log, want)
	}

	p.SetOnPlaced(nil)
	log = nil
	if err := p.AddAsk(&app.Allocation{Key: "k5", AppID: "app1", Res: vec(1000, 100)}, t0); err != nil {
		t.Fatal(err)
	}
	if got := p.Schedule(t0); got != 1 {
		t.Fatalf("allocated %d, want 1", got)
	}
	if !slices.Equal(log, []string{"asked k5"}) {
		t.Fatalf("calls after removal: %q", log)
	}
}
