package rmproxy

import (
	"strings"
	"testing"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

// Issue 14 item 9: any update from an RM ID that is not registered is an
// error naming it and changes nothing.
func TestUnregisteredRMIsAnError(t *testing.T) {
	r := newBindRig(t, "n1")
	check := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), `"ghost"`) || !strings.Contains(err.Error(), "not registered") {
			t.Errorf("%s: error %v, want one naming RM ghost as not registered", what, err)
		}
	}
	check("node", r.s.UpdateNode(&si.NodeRequest{RmID: "ghost", Nodes: []*si.NodeInfo{
		{NodeID: "n9", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)},
	}}))
	check("application", r.s.UpdateApplication(&si.ApplicationRequest{RmID: "ghost", New: []*si.AddApplicationRequest{
		{ApplicationID: "app9", QueueName: "root.a", PartitionName: "default", Ugi: &si.UserGroupInformation{User: "alice"}},
	}}))
	check("allocation", r.s.UpdateAllocation(&si.AllocationRequest{RmID: "ghost", Allocations: []*si.Allocation{
		{AllocationKey: "k", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)},
	}}))
	check("configuration", r.s.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "ghost", Config: cfg}))
	r.cycle()
	r.inspect(func(e *engine.Engine) {
		if ids := e.RMs(); len(ids) != 1 || ids[0] != "rm1" {
			t.Errorf("RMs %v, want only rm1", ids)
		}
		p, _ := e.Partition("rm1", "default")
		if _, ok := p.Node("n9"); ok {
			t.Error("node n9 was added")
		}
		if a, _ := p.App("app1"); a.PendingCount()+a.AllocatedCount() != 0 {
			t.Error("app1 got an ask")
		}
	})
	if err := r.s.UpdateNode(&si.NodeRequest{RmID: "rm1"}); err != nil {
		t.Errorf("a registered RM's update: %v", err)
	}
}

// The reference names partitions "[rmID]name" internally; an RM that sends
// that form reaches the same partition.
func TestPartitionNameWithRMID(t *testing.T) {
	r := newBindRig(t, "n1")
	_ = r.s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app2", QueueName: "root.a", PartitionName: "[rm1]default", Ugi: &si.UserGroupInformation{User: "alice"}},
	}})
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "k", ApplicationID: "app2", PartitionName: "[rm1]default", ResourcePerAlloc: res(1000, 1<<30)},
	}})
	r.cycle()
	if len(r.rec.rejApps) != 0 {
		t.Errorf("rejected %v", r.rec.rejApps)
	}
	if got := r.allocsOf("k"); len(got) != 1 {
		t.Errorf("allocations of k %v, want one", got)
	}
}
