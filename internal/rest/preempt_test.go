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

const preemptConfig = `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources: {guaranteed: {vcore: 4}}
          - name: b
            resources: {guaranteed: {vcore: 2}}
`

// TestPreemptionFields: the preemptor's triggeredPreemption, the victims'
// preempted flag while the RM releases them, and the victims' time in the
// preemptedResource history once released.
func TestPreemptionFields(t *testing.T) {
	clk := clock.NewVirtual(start)
	s := rmproxy.NewManual(clk)
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm-1", Config: preemptConfig}, callback.Nop{}); err != nil {
		t.Fatal(err)
	}
	s.UpdateNode(&si.NodeRequest{RmID: "rm-1", Nodes: []*si.NodeInfo{
		{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(8000, 16<<30),
			Attributes: map[string]string{common.InstanceType: "big"}},
	}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm-1", New: []*si.AddApplicationRequest{
		{ApplicationID: "b", QueueName: "root.b", Ugi: ugi("u")},
	}})
	alloc := func(app, key string, cpu int64) *si.Allocation {
		return &si.Allocation{AllocationKey: key, ApplicationID: app, ResourcePerAlloc: res(cpu, 0)}
	}
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Allocations: []*si.Allocation{
		alloc("b", "b1", 2000), alloc("b", "b2", 2000), alloc("b", "b3", 2000), alloc("b", "b4", 2000),
	}})
	s.Cycle()
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm-1", New: []*si.AddApplicationRequest{
		{ApplicationID: "a", QueueName: "root.a", Ugi: ugi("v")},
	}})
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Allocations: []*si.Allocation{alloc("a", "a1", 2000)}})
	s.Cycle()
	clk.Advance(40 * time.Second) // past preemption.delay
	s.Cycle()

	h := New(s, Options{})
	read := func(id string) AppInfo {
		t.Helper()
		var a AppInfo
		if err := json.Unmarshal(do(t, h, request{path: "/ws/v1/partition/default/application/" + id}).Body.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := read("a")
	if len(a.Requests) != 1 || !a.Requests[0].TriggeredPreemption {
		t.Fatalf("preemptor requests %+v, want a1 with triggeredPreemption", a.Requests)
	}
	var victims []string
	for _, x := range read("b").Allocations {
		if x.Preempted {
			victims = append(victims, x.AllocationKey)
		}
	}
	if len(victims) != 1 {
		t.Fatalf("preempted allocations %v, want one", victims)
	}

	clk.Advance(5 * time.Second) // the RM takes 5 s to stop the victim
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Releases: &si.AllocationReleasesRequest{AllocationsToRelease: []*si.AllocationRelease{
		{PartitionName: "default", ApplicationID: "b", AllocationKey: victims[0], TerminationType: si.TerminationType_PREEMPTED_BY_SCHEDULER},
	}}})
	s.Cycle()
	b := read("b")
	// the victim ran from the first cycle until 45 s later
	want := int64(2000 * 45)
	if got := b.ResourceHistory.PreemptedResource["big"]["vcore"]; got != want {
		t.Errorf("preemptedResource %v, want big/vcore %d", b.ResourceHistory.PreemptedResource, want)
	}
	if got := b.ResourceHistory.ResourceUsage["big"]["vcore"]; got != want {
		t.Errorf("resourceUsage %v, want big/vcore %d", b.ResourceHistory.ResourceUsage, want)
	}
	if a := read("a"); len(a.Allocations) != 1 {
		t.Errorf("the preemptor was not placed after the release: %+v", a.Requests)
	}
}

// TestPreemptionDecisionsAndDryRun: the dry run says why nothing would be
// preempted within preemption.delay and what would be after it, the last
// decisions list the guaranteed-rule decision with both queues' shares,
// and unknown asks get 404.
func TestPreemptionDecisionsAndDryRun(t *testing.T) {
	clk := clock.NewVirtual(start)
	s := rmproxy.NewManual(clk)
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm-1", Config: preemptConfig}, callback.Nop{}); err != nil {
		t.Fatal(err)
	}
	s.UpdateNode(&si.NodeRequest{RmID: "rm-1", Nodes: []*si.NodeInfo{{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(8000, 16<<30)}}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm-1", New: []*si.AddApplicationRequest{{ApplicationID: "b", QueueName: "root.b", Ugi: ugi("u")}}})
	alloc := func(app, key string, cpu int64) *si.Allocation {
		return &si.Allocation{AllocationKey: key, ApplicationID: app, ResourcePerAlloc: res(cpu, 0)}
	}
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Allocations: []*si.Allocation{alloc("b", "b1", 4000), alloc("b", "b2", 4000)}})
	s.Cycle()
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm-1", New: []*si.AddApplicationRequest{{ApplicationID: "a", QueueName: "root.a", Ugi: ugi("v")}}})
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Allocations: []*si.Allocation{alloc("a", "a1", 2000)}})
	s.Cycle()
	h := New(s, Options{})
	dry := func() PreemptDryRunInfo {
		t.Helper()
		rec := do(t, h, request{path: "/ws/v1/partition/default/application/a/preemption/a1"})
		var out PreemptDryRunInfo
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || rec.Code != 200 {
			t.Fatalf("dry run: %d %s", rec.Code, rec.Body)
		}
		return out
	}
	if d := dry(); d.WouldPreempt || d.Decision != nil || d.Why == "" {
		t.Errorf("dry run within the delay = %+v", d)
	}
	clk.Advance(40 * time.Second)
	d := dry()
	if !d.WouldPreempt || d.Decision == nil || d.Decision.Rule != "guaranteed" || len(d.Decision.Victims) != 1 {
		t.Fatalf("dry run after the delay = %+v", d)
	}
	if rec := do(t, h, request{path: "/ws/v1/partition/default/application/a/preemption/nope"}); rec.Code != 404 {
		t.Errorf("unknown ask: %d", rec.Code)
	}
	var none []PreemptDecisionInfo
	if err := json.Unmarshal(do(t, h, request{path: "/ws/v1/partition/default/preemptions"}).Body.Bytes(), &none); err != nil || len(none) != 0 {
		t.Fatalf("decisions before any = %v, %v", none, err)
	}
	s.Cycle()
	var got []PreemptDecisionInfo
	if err := json.Unmarshal(do(t, h, request{path: "/ws/v1/partition/default/preemptions"}).Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("decisions %+v", got)
	}
	g := got[0]
	if g.Rule != "guaranteed" || g.ApplicationID != "a" || g.AllocationKey != "a1" || g.Node != "n1" || g.Reason != d.Decision.Reason ||
		g.Preemptor != (QueueShareInfo{Queue: "root.a", Basis: "guaranteed", Share: 0.5, Target: 1}) ||
		len(g.VictimQueues) != 1 || g.VictimQueues[0] != (QueueShareInfo{Queue: "root.b", Basis: "guaranteed", Share: 4, Target: 1}) ||
		len(g.Victims) != 1 || g.Victims[0].Resource["vcore"] != 4000 {
		t.Errorf("decision %+v", g)
	}
}
