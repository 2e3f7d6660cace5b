package rest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// TestResourceHistoryAndMaxUsed: an application's maxUsedResource keeps
// its peak after releases, and resourceHistory sums resource·seconds of
// the released allocations per instance type of their node.
func TestResourceHistoryAndMaxUsed(t *testing.T) {
	clk := clock.NewVirtual(start)
	s := rmproxy.NewManual(clk)
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm-1", Config: testConfig}, callback.Nop{}); err != nil {
		t.Fatal(err)
	}
	s.UpdateNode(&si.NodeRequest{RmID: "rm-1", Nodes: []*si.NodeInfo{
		{NodeID: "m5", Action: si.NodeInfo_CREATE, SchedulableResource: res(1000, 4<<30),
			Attributes: map[string]string{"node.kubernetes.io/instance-type": "m5.large"}},
		{NodeID: "c6", Action: si.NodeInfo_CREATE, SchedulableResource: res(2000, 4<<30),
			Attributes: map[string]string{common.InstanceType: "c6i.xlarge"}},
	}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm-1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app", QueueName: "root.b", Ugi: ugi("carol")},
	}})
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Allocations: []*si.Allocation{
		{AllocationKey: "big", ApplicationID: "app", ResourcePerAlloc: res(2000, 1<<30)},
		{AllocationKey: "small", ApplicationID: "app", ResourcePerAlloc: res(1000, 1<<30)},
	}})
	s.Cycle()
	release := func(key string) {
		s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Releases: &si.AllocationReleasesRequest{AllocationsToRelease: []*si.AllocationRelease{
			{PartitionName: "default", ApplicationID: "app", AllocationKey: key, TerminationType: si.TerminationType_STOPPED_BY_RM},
		}}})
		s.Cycle()
	}
	clk.Advance(10 * time.Second)
	release("big")
	clk.Advance(20 * time.Second)
	release("small")

	h := New(s, Options{})
	var a AppInfo
	if err := json.Unmarshal(do(t, h, request{path: "/ws/v1/partition/default/application/app"}).Body.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	if len(a.UsedResource) != 0 || a.MaxUsedResource["vcore"] != 3000 || a.MaxUsedResource["memory"] != 2<<30 {
		t.Errorf("usedResource %v maxUsedResource %v: want {} and the peak of both allocations", a.UsedResource, a.MaxUsedResource)
	}
	want := map[string]Resource{
		"c6i.xlarge": {"vcore": 2000 * 10, "memory": (1 << 30) * 10},
		"m5.large":   {"vcore": 1000 * 30, "memory": (1 << 30) * 30},
	}
	got := a.ResourceHistory.ResourceUsage
	if len(got) != len(want) {
		t.Fatalf("resourceUsage %v, want %v", got, want)
	}
	for inst, r := range want {
		for name, v := range r {
			if got[inst][name] != v {
				t.Errorf("resourceUsage[%s][%s] = %d, want %d", inst, name, got[inst][name], v)
			}
		}
	}
	if len(a.ResourceHistory.PreemptedResource) != 0 || len(a.ResourceHistory.PlaceholderResource) != 0 {
		t.Errorf("preempted %v placeholder %v, want none", a.ResourceHistory.PreemptedResource, a.ResourceHistory.PlaceholderResource)
	}
}
