package rmproxy

import (
	"strconv"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// Issue 14 item 20: a recovered allocation's creation time counts in fifo
// order: an application submitted later but holding an older recovered
// allocation goes first.
func TestRecoveredCreationTimeCountsInFIFO(t *testing.T) {
	r := newBindRig(t, "n1") // app1 submitted now
	r.cycle()
	old := strconv.FormatInt(r.clk.Now().Add(-time.Hour).Unix(), 10)
	_ = r.s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app2", QueueName: "root.a", PartitionName: "default", Ugi: &si.UserGroupInformation{User: "alice"}},
	}})
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "rec", ApplicationID: "app2", PartitionName: "default", NodeID: "n1", ResourcePerAlloc: res(1000, 1<<30),
			AllocationTags: map[string]string{"creationTime": old}},
	}})
	r.cycle()
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "a1", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(3000, 1<<30)},
		{AllocationKey: "a2", ApplicationID: "app2", PartitionName: "default", ResourcePerAlloc: res(3000, 1<<30)},
	}})
	r.cycle()
	if got := r.allocsOf("a2"); len(got) != 1 {
		t.Errorf("a2 allocations %v, want the older app2 first", got)
	}
	if got := r.allocsOf("a1"); len(got) != 0 {
		t.Errorf("a1 allocated %v before the older app2", got)
	}
}
