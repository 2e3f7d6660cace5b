package rmproxy

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

// batchRecorder records the size of every allocation callback and the
// service generation it saw.
type batchRecorder struct {
	*recorder
	s     *Service
	sizes []int
	gens  []uint64
}

func (r *batchRecorder) UpdateAllocation(resp *si.AllocationResponse) error {
	r.mu.Lock()
	if len(resp.New) > 0 {
		r.sizes = append(r.sizes, len(resp.New))
		r.gens = append(r.gens, r.s.Generation())
	}
	r.mu.Unlock()
	return r.recorder.UpdateAllocation(resp)
}

// A long pass delivers its allocations in batches of at most MaxBatch, in
// decision order, each after its decisions were applied (the generation
// moved), and the RM still hears Accepted, then allocations, then Running.
// The RM says its Predicates does not depend on allocations, so nothing
// is delivered early (settle_test.go has the other case).
func TestPassDeliversInBatches(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	rec := &batchRecorder{recorder: newRecorder(), s: s}
	extra := map[string]string{config.ExtraPredicatesSeeAllocations: "false"}
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg, ExtraConfig: extra}, rec); err != nil {
		t.Fatal(err)
	}
	_ = s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{
		{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(1<<40, 1<<50)},
	}})
	rec.await(t, "node", func() bool { return len(rec.accNodes) == 1 })
	const n = 5000
	var asks []*si.Allocation
	for i := range n {
		asks = append(asks, &si.Allocation{AllocationKey: fmt.Sprintf("k%05d", i), ApplicationID: "app1", ResourcePerAlloc: res(1, 1)})
	}
	before := s.Generation()
	// both requests are queued at once: one intake, one pass of n asks
	_ = s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
	}})
	_ = s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks})
	rec.await(t, "allocations", func() bool { return len(rec.allocs) == n })

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.sizes) > n/4 {
		t.Errorf("%d allocations in %d callbacks: not batched", n, len(rec.sizes))
	}
	if len(rec.sizes) < (n+MaxBatch-1)/MaxBatch {
		t.Errorf("%d allocations in %d callbacks %v, want batches of at most %d", n, len(rec.sizes), rec.sizes, MaxBatch)
	}
	for i, size := range rec.sizes {
		if size > MaxBatch {
			t.Errorf("callback %d carries %d allocations, more than %d", i, size, MaxBatch)
		}
		// the courier may deliver two batches after the generation moved
		// past both, never before
		if i == 0 && rec.gens[i] <= before || i > 0 && rec.gens[i] < rec.gens[i-1] {
			t.Errorf("callback %d at generation %d, the one before at %d (%d before the asks)", i, rec.gens[i], rec.gens[max(i-1, 0)], before)
		}
	}
	for i, a := range rec.allocs {
		if want := fmt.Sprintf("k%05d", i); a.AllocationKey != want {
			t.Fatalf("allocation %d is %s, want %s (decision order)", i, a.AllocationKey, want)
		}
	}
	var order []string
	for _, o := range rec.order {
		if o == "state app1 Accepted" || o == "state app1 Running" || o == "alloc k00000" {
			order = append(order, o)
		}
	}
	if fmt.Sprint(order) != "[state app1 Accepted alloc k00000 state app1 Running]" {
		t.Errorf("callback order %v, want Accepted, the first allocation, Running", order)
	}
}

// A burst of asks in one large request does not wait whole for a pass:
// intake is cut, passes run while the rest is taken in, and the asks are
// still placed once each, in order.
func TestLargeRequestIsCut(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	rec := &batchRecorder{recorder: newRecorder(), s: s}
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	_ = s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{
		{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(1<<40, 1<<50)},
	}})
	_ = s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
	}})
	rec.await(t, "app", func() bool { return len(rec.accApps) == 1 })
	var before uint64
	_ = s.Inspect(func(e *engine.Engine) { p, _ := e.Partition("rm1", "default"); before = p.Stats.Passes })
	// far more than IntakeSlice of work on any machine
	const n = 10000
	asks := make([]*si.Allocation, n)
	for i := range asks {
		asks[i] = &si.Allocation{AllocationKey: fmt.Sprintf("k%05d", i), ApplicationID: "app1", ResourcePerAlloc: res(1, 1)}
	}
	_ = s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks})
	rec.await(t, "allocations", func() bool { return len(rec.allocs) == n })
	var passes uint64
	_ = s.Inspect(func(e *engine.Engine) { p, _ := e.Partition("rm1", "default"); passes = p.Stats.Passes - before })
	if passes < 2 {
		t.Errorf("one request of %d asks was scheduled in %d pass(es), want it cut", n, passes)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i, a := range rec.allocs {
		if want := fmt.Sprintf("k%05d", i); a.AllocationKey != want {
			t.Fatalf("allocation %d is %s, want %s", i, a.AllocationKey, want)
		}
	}
}

// The first intake slice of a burst is short, later ones (the goroutine
// delivered within the last IntakeSlice) are whole.
func TestFirstSliceOfABurst(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		quiet time.Duration // since the last delivery
		slice time.Duration // until the slice ends
	}{
		{time.Hour, FirstSlice},
		{IntakeSlice, FirstSlice},
		{IntakeSlice - time.Microsecond, IntakeSlice},
		{0, IntakeSlice},
	} {
		start := sliceStart(now, now.Add(-c.quiet))
		if got := start.Add(IntakeSlice).Sub(now); got != c.slice {
			t.Errorf("%v after the last delivery: the slice ends after %v, want %v", c.quiet, got, c.slice)
		}
	}
	if FirstSlice <= 0 || FirstSlice >= IntakeSlice {
		t.Errorf("FirstSlice %v outside (0, %v)", FirstSlice, IntakeSlice)
	}
}
