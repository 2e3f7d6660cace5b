package rest

import (
	"encoding/json"
	"testing"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// An allocation that took a placeholder's place shows placeholderUsed,
// as in the reference, once the RM confirmed the replacement.
func TestPlaceholderUsed(t *testing.T) {
	clk := clock.NewVirtual(start)
	s := rmproxy.NewManual(clk)
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm-1", Config: testConfig}, callback.Nop{}); err != nil {
		t.Fatal(err)
	}
	s.UpdateNode(&si.NodeRequest{RmID: "rm-1", Nodes: []*si.NodeInfo{
		{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 4<<30)},
	}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm-1", New: []*si.AddApplicationRequest{
		{ApplicationID: "g", QueueName: "root.b", Ugi: ugi("carol"), PlaceholderAsk: res(1000, 1<<30)},
	}})
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Allocations: []*si.Allocation{
		{AllocationKey: "ph", ApplicationID: "g", ResourcePerAlloc: res(1000, 1<<30), Placeholder: true, TaskGroupName: "tg"},
	}})
	s.Cycle()
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Allocations: []*si.Allocation{
		{AllocationKey: "real", ApplicationID: "g", ResourcePerAlloc: res(1000, 1<<30), TaskGroupName: "tg"},
	}})
	s.Cycle()
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Releases: &si.AllocationReleasesRequest{AllocationsToRelease: []*si.AllocationRelease{
		{PartitionName: "default", ApplicationID: "g", AllocationKey: "ph", TerminationType: si.TerminationType_PLACEHOLDER_REPLACED},
	}}})
	s.Cycle()
	h := New(s, Options{})
	var a AppInfo
	body := do(t, h, request{path: "/ws/v1/partition/default/application/g"}).Body.Bytes()
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	if len(a.Allocations) != 1 || a.Allocations[0].AllocationKey != "real" {
		t.Fatalf("allocations %+v, want the real one", a.Allocations)
	}
	if !a.Allocations[0].PlaceholderUsed {
		t.Errorf("placeholderUsed false for an allocation that replaced a placeholder ")
	}
}
