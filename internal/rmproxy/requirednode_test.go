package rmproxy

import (
	"context"
	"testing"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

func (r *bindRig) pinned(key, tag, nodeID string, cpu int64, prio int32) {
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{{
		AllocationKey: key, ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(cpu, 1<<30),
		Priority: prio, AllocationTags: map[string]string{tag: nodeID},
	}}})
}

// Issue 14 item 2: the shim pins daemon-set pods with the tag
// yunikorn.apache.org/requiredNode; the bare requiredNode works too.
func TestRequiredNodeTag(t *testing.T) {
	r := newBindRig(t, "n1", "n2", "n3")
	r.pinned("p3", "yunikorn.apache.org/requiredNode", "n3", 1000, 0)
	r.pinned("b2", "requiredNode", "n2", 1000, 0)
	r.pinned("p3b", "yunikorn.apache.org/requiredNode", "n3", 1000, 0)
	r.cycle()
	want := map[string]string{"p3": "n3", "b2": "n2", "p3b": "n3"}
	for k, n := range want {
		got := r.allocsOf(k)
		if len(got) != 1 || got[0].NodeID != n {
			t.Errorf("%s: allocations %v, want one on %s", k, got, n)
		}
	}
}

func (r *bindRig) addNode(id string) {
	_ = r.s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{
		{NodeID: id, Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)},
	}})
}

// A pinned ask that does not fit reserves its node at once, and the
// reservation is in the snapshot REST serves.
func TestRequiredNodeTagReserves(t *testing.T) {
	r := newBindRig(t, "n1")
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "high", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(3000, 1<<30), Priority: 10},
	}})
	r.cycle()
	r.addNode("n2")
	r.pinned("ds", "yunikorn.apache.org/requiredNode", "n1", 2000, 5)
	r.cycle()
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		n, _ := p.Node("n1")
		if n.ReservedFor != "ds" {
			t.Errorf("n1 reserved for %q, want ds", n.ReservedFor)
		}
	})
	snap, err := r.s.CurrentSnapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	part, ok := snap.Partition("default")
	if !ok {
		t.Fatal("no partition in the snapshot")
	}
	found := false
	for _, a := range part.Apps {
		for _, res := range a.Reserved {
			if res.NodeID == "n1" && res.AskKey == "ds" {
				found = true
			}
		}
	}
	if !found {
		t.Error("the snapshot shows no reservation of n1 for ds")
	}
	if len(r.rec.released) != 0 || len(r.allocsOf("ds")) != 0 {
		t.Errorf("released %v, ds allocated %v; a higher priority is no victim and ds must stay on n1", r.rec.released, r.allocsOf("ds"))
	}
	r.release("app1", "high", si.TerminationType_STOPPED_BY_RM)
	r.cycle()
	if got := r.allocsOf("ds"); len(got) != 1 || got[0].NodeID != "n1" {
		t.Errorf("ds: %v, want it placed on n1 once the node has room", got)
	}
}

// A pinned ask preempts on its node what it outranks.
func TestRequiredNodeTagPreempts(t *testing.T) {
	r := newBindRig(t, "n1")
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "low", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(3000, 1<<30)},
	}})
	r.cycle()
	r.addNode("n2")
	r.pinned("ds", "yunikorn.apache.org/requiredNode", "n1", 2000, 5)
	r.cycle()
	r.cycle()
	if rel := r.releasedKeys(); rel["low"] != si.TerminationType_PREEMPTED_BY_SCHEDULER {
		t.Errorf("releases %v, want low preempted for the pinned ds", rel)
	}
}
