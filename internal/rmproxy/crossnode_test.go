package rmproxy

import (
	"testing"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

// Issue 14 item 14: when the RM's predicates refuse the node of the
// group's first placeholder for the real ask, a placeholder of the same
// group on another node is replaced.
func TestPlaceholderReplacedOnAnotherNode(t *testing.T) {
	r := newBindRig(t, "n1", "n2")
	_ = r.s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{{
		ApplicationID: "g", QueueName: "root.a", PartitionName: "default", Ugi: &si.UserGroupInformation{User: "alice"},
		PlaceholderAsk: res(6000, 2<<30),
	}}})
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "ph1", ApplicationID: "g", PartitionName: "default", ResourcePerAlloc: res(3000, 1<<30), Placeholder: true, TaskGroupName: "tg"},
		{AllocationKey: "ph2", ApplicationID: "g", PartitionName: "default", ResourcePerAlloc: res(3000, 1<<30), Placeholder: true, TaskGroupName: "tg"},
	}})
	r.cycle()
	placed := map[string]string{}
	for _, a := range r.rec.allocs {
		placed[a.AllocationKey] = a.NodeID
	}
	if placed["ph1"] == "" || placed["ph2"] == "" || placed["ph1"] == placed["ph2"] {
		t.Fatalf("placeholders on %v, want one on each node", placed)
	}
	var first string
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		a, _ := p.App("g")
		first = a.Placeholder("tg").Key
	})
	other := "ph1"
	if first == "ph1" {
		other = "ph2"
	}
	r.rec.mu.Lock()
	r.rec.veto = map[string]bool{placed[first]: true}
	r.rec.mu.Unlock()
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "real", ApplicationID: "g", PartitionName: "default", ResourcePerAlloc: res(2000, 1<<30), TaskGroupName: "tg"},
	}})
	r.cycle()
	rel := r.releasedKeys()
	if rel[other] != si.TerminationType_PLACEHOLDER_REPLACED {
		t.Fatalf("releases %v, want %s (on %s) replaced", rel, other, placed[other])
	}
	if _, ok := rel[first]; ok {
		t.Errorf("%s on the refused node was released too", first)
	}
	r.release("g", other, si.TerminationType_PLACEHOLDER_REPLACED)
	r.cycle()
	if got := r.allocsOf("real"); len(got) != 1 || got[0].NodeID != placed[other] {
		t.Errorf("real: %v, want it on %s", got, placed[other])
	}
}
