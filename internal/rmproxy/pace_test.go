package rmproxy

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
)

// TestAllocationRate checks paddock.allocations.perSecond end to end on
// virtual time: an RM that sets 100 a second is given at most a tenth of
// a second's worth at once and then 100 a second, the asks held back stay
// pending until their turn, a bad value keeps the service's default, and
// 0 lifts the bound.
func TestAllocationRate(t *testing.T) {
	start := time.Unix(1000, 0)
	run := func(extra map[string]string, serviceRate float64, steps int) []int {
		v := clock.NewVirtual(start)
		s := NewManual(v)
		s.SetAllocationRate(serviceRate)
		rec := newRecorder()
		if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm", Config: cfg, ExtraConfig: extra}, rec); err != nil {
			t.Fatal(err)
		}
		var nodes []*si.NodeInfo
		for i := range 10 {
			nodes = append(nodes, &si.NodeInfo{NodeID: fmt.Sprint("n", i), Action: si.NodeInfo_CREATE, SchedulableResource: res(100000, 100<<30)})
		}
		s.UpdateNode(&si.NodeRequest{RmID: "rm", Nodes: nodes})
		s.UpdateApplication(&si.ApplicationRequest{RmID: "rm", New: []*si.AddApplicationRequest{
			{ApplicationID: "a", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "u"}}}})
		var asks []*si.Allocation
		for i := range 100 {
			asks = append(asks, &si.Allocation{AllocationKey: fmt.Sprint("k", i), ApplicationID: "a", ResourcePerAlloc: res(100, 1<<20)})
		}
		s.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Allocations: asks})
		var got []int
		for range steps {
			s.Cycle()
			got = append(got, len(rec.allocs))
			v.Advance(100 * time.Millisecond)
		}
		return got
	}
	paced := run(map[string]string{"paddock.allocations.perSecond": "100"}, 0, 5)
	// a burst of 10 at once, then 10 per 100 ms
	if want := []int{10, 20, 30, 40, 50}; fmt.Sprint(paced) != fmt.Sprint(want) {
		t.Fatalf("allocations after each 100 ms at 100/s: %v, want %v", paced, want)
	}
	if got := run(map[string]string{"paddock.allocations.perSecond": "-3"}, 50, 3); fmt.Sprint(got) != "[5 10 15]" {
		t.Fatalf("a bad value keeps the service's default of 50/s: got %v, want [5 10 15]", got)
	}
	if got := run(map[string]string{"paddock.allocations.perSecond": "0"}, 50, 1); got[0] != 100 {
		t.Fatalf("0 lifts the bound: %d allocated in the first step, want 100", got[0])
	}
	if got := run(nil, 0, 1); got[0] != 100 {
		t.Fatalf("no bound by default: %d allocated in the first step, want 100", got[0])
	}
}
