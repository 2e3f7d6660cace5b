package rmproxy

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"
	"weak"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/app"
)

// A block of asks fills its size class: the runtime rounds an object up
// to its class (10,240 bytes here), and one more ask would not fit.
// Resize allocBlock when app.Allocation changes size.
func TestAllocBlockFillsSizeClass(t *testing.T) {
	const class = 10240
	size := unsafe.Sizeof(app.Allocation{})
	if b := allocBlock * size; b > class || class-b >= size {
		t.Errorf("%d asks of %d bytes take %d bytes, want the most that fit in %d", allocBlock, size, b, class)
	}
}

// Once an allocation is delivered the scheduler keeps nothing of the RM's
// message for it: an allocation that runs for hours does not hold the
// message and its maps (hundreds of bytes) alive.
func TestDeliveredAllocationDropsRMMessage(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	_ = s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{
		{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(1<<20, 1<<30)},
	}})
	_ = s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
	}})
	rec.await(t, "app", func() bool { return len(rec.accApps) == 1 })
	const n = 40 // more than one block of prepared asks
	held := make([]weak.Pointer[si.Allocation], n)
	func() {
		asks := make([]*si.Allocation, n)
		for i := range asks {
			asks[i] = &si.Allocation{AllocationKey: fmt.Sprintf("k%02d", i), ApplicationID: "app1", ResourcePerAlloc: res(1, 1)}
			held[i] = weak.Make(asks[i])
		}
		_ = s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks})
	}()
	rec.await(t, "allocations", func() bool { return len(rec.allocs) == n })
	// a request after them, so that nothing of the first is left queued
	_ = s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "later", ApplicationID: "app1", ResourcePerAlloc: res(1, 1)},
	}})
	rec.await(t, "the later allocation", func() bool { return len(rec.allocs) == n+1 })
	rec.mu.Lock()
	for i, a := range rec.allocs[:n] {
		if a.AllocationKey != fmt.Sprintf("k%02d", i) || a.NodeID != "n1" || a.ResourcePerAlloc == nil {
			t.Errorf("delivered %v", a)
		}
	}
	rec.mu.Unlock()
	runtime.GC()
	runtime.GC()
	kept := 0
	for _, w := range held {
		if w.Value() != nil {
			kept++
		}
	}
	if kept > 0 {
		t.Errorf("%d of %d delivered allocations' RM messages are still reachable", kept, n)
	}
}
