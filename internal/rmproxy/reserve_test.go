package rmproxy

import (
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

// reserveRig: two nodes each half used by app1, and an ask of a whole node
// that fits none, which reserves one after the reservation delay.
func reserveRig(t *testing.T) *bindRig {
	r := newBindRig(t, "n1", "n2")
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "s1", ApplicationID: "app1", PartitionName: "default", NodeID: "n1", ResourcePerAlloc: res(2000, 1<<30)},
		{AllocationKey: "s2", ApplicationID: "app1", PartitionName: "default", NodeID: "n2", ResourcePerAlloc: res(2000, 1<<30)},
		{AllocationKey: "big", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(4000, 1<<30)},
	}})
	r.cycle()
	r.clk.Advance(3 * time.Second)
	r.cycle()
	return r
}

func (r *bindRig) reservations() int {
	n := 0
	r.inspect(func(e *engine.Engine) {
		for _, id := range e.RMs() {
			rm, _ := e.RM(id)
			for _, p := range rm.Partitions() {
				n += p.Reservations()
			}
		}
	})
	return n
}

func TestSetReservations(t *testing.T) {
	r := reserveRig(t)
	if n := r.reservations(); n != 1 {
		t.Fatalf("%d reservations before, want 1 (the rig must reserve)", n)
	}
	if err := r.s.SetReservations(false); err != nil {
		t.Fatal(err)
	}
	if n := r.reservations(); n != 0 {
		t.Errorf("%d reservations after turning them off", n)
	}
	r.clk.Advance(3 * time.Second)
	r.cycle()
	if n := r.reservations(); n != 0 {
		t.Errorf("%d reservations made while off", n)
	}
	// a reload (which may make partitions anew) keeps them off
	if err := r.s.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "rm1", Config: cfg}); err != nil {
		t.Fatal(err)
	}
	r.clk.Advance(3 * time.Second)
	r.cycle()
	if n := r.reservations(); n != 0 {
		t.Errorf("%d reservations after a reload", n)
	}
	// and on again
	if err := r.s.SetReservations(true); err != nil {
		t.Fatal(err)
	}
	r.clk.Advance(3 * time.Second)
	r.cycle()
	r.clk.Advance(3 * time.Second)
	r.cycle()
	if n := r.reservations(); n != 1 {
		t.Errorf("%d reservations after turning them back on, want 1", n)
	}
}
