package rest

import (
	"context"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/history"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// A scripted cluster state, driven through the SI on a virtual clock.

const testConfig = `
partitions:
  - name: default
    placementrules:
      - name: provided
      - name: tag
        value: namespace
        create: true
        parent:
          name: fixed
          value: root.tenants
    nodesortpolicy:
      type: binpacking
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources:
              guaranteed: {vcore: 2, memory: 2Gi}
              max: {vcore: 3, memory: 6Gi}
            properties:
              application.sort.policy: fair
            limits:
              - limit: the dev group
                groups: [dev]
                maxapplications: 10
                maxresources: {vcore: 3}
          - name: b
            limits:
              - limit: one application for bob
                users: [bob]
                maxapplications: 1
          - name: tenants
            parent: true
            childtemplate:
              maxapplications: 5
              resources:
                max: {vcore: 2, memory: 2Gi}
  - name: gpu
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: train
`

var start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func res(cpu, mem int64) *si.Resource {
	return &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: cpu}, "memory": {Value: mem}}}
}

func ugi(user string) *si.UserGroupInformation {
	return &si.UserGroupInformation{User: user, Groups: []string{"dev"}}
}

// scripted builds the cluster: three nodes (one draining, one with a
// foreign allocation), a running application with a pending ask held by
// its queue's max, a user over her application limit, a completed and a
// rejected application, a dynamic queue from a namespace tag, and an ask
// reserving a node.
func scripted(t testing.TB) (*rmproxy.Service, *clock.Virtual) {
	t.Helper()
	clk := clock.NewVirtual(start)
	s := rmproxy.NewManual(clk)
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{
		RmID: "rm-1", PolicyGroup: "queues", Config: testConfig,
		BuildInfo: map[string]string{"buildVersion": "1.0.0", "buildDate": "2026-01-01"},
	}, callback.Nop{}); err != nil {
		t.Fatal(err)
	}
	node := func(id, rack string, cpu, mem int64) *si.NodeInfo {
		return &si.NodeInfo{NodeID: id, Action: si.NodeInfo_CREATE, SchedulableResource: res(cpu, mem),
			Attributes: map[string]string{common.HostName: id + ".example", common.RackName: rack, "zone": "z1"}}
	}
	gpuNode := node("g1", "r9", 8000, 16<<30)
	gpuNode.Attributes[common.NodePartition] = "gpu"
	s.UpdateNode(&si.NodeRequest{RmID: "rm-1", Nodes: []*si.NodeInfo{
		node("n1", "r1", 4000, 8<<30), node("n2", "r1", 4000, 8<<30), node("n3", "r2", 4000, 8<<30), gpuNode,
	}})
	s.UpdateNode(&si.NodeRequest{RmID: "rm-1", Nodes: []*si.NodeInfo{{NodeID: "n3", Action: si.NodeInfo_DRAIN_NODE}}})
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Allocations: []*si.Allocation{{
		AllocationKey: "foreign-1", NodeID: "n2", ResourcePerAlloc: res(500, 1<<30),
		AllocationTags: map[string]string{common.Foreign: common.AllocTypeDefault},
	}}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm-1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app-1", QueueName: "root.a", Ugi: ugi("alice")},
		{ApplicationID: "app-2", QueueName: "root.b", Ugi: ugi("bob")},
		{ApplicationID: "app-3", QueueName: "root.b", Ugi: ugi("bob")},
		{ApplicationID: "app-done", QueueName: "root.b", Ugi: ugi("carol")},
		{ApplicationID: "app-ns", Ugi: ugi("dave"), Tags: map[string]string{"namespace": "team1"}},
		{ApplicationID: "app-rejected", QueueName: "root.nope", Ugi: ugi("erin")},
		{ApplicationID: "app-gpu", PartitionName: "gpu", QueueName: "root.train", Ugi: ugi("alice")},
	}})
	ask := func(app, key string, cpu, mem int64, prio int32) *si.Allocation {
		return &si.Allocation{AllocationKey: key, ApplicationID: app, ResourcePerAlloc: res(cpu, mem), Priority: prio,
			AllocationTags: map[string]string{"kubernetes.io/meta/namespace": "ns", "kubernetes.io/meta/podName": key}}
	}
	gpuAsk := ask("app-gpu", "gpu-1", 1000, 1<<30, 0)
	gpuAsk.PartitionName = "gpu"
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Allocations: []*si.Allocation{
		ask("app-1", "a-1", 1000, 1<<30, 5), ask("app-1", "a-2", 1000, 1<<30, 5), ask("app-1", "a-big", 2000, 1<<30, 10),
		ask("app-2", "b-1", 500, 512<<20, 0), ask("app-3", "c-1", 500, 512<<20, 0),
		ask("app-done", "d-1", 100, 1<<20, 0), ask("app-ns", "ns-1", 200, 1<<20, 0), gpuAsk,
	}})
	s.Cycle()
	// app-done finishes: released, Completing, then Completed after the timeout
	clk.Advance(time.Second)
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Releases: &si.AllocationReleasesRequest{AllocationsToRelease: []*si.AllocationRelease{
		{PartitionName: "default", ApplicationID: "app-done", AllocationKey: "d-1", TerminationType: si.TerminationType_STOPPED_BY_RM},
	}}})
	s.Cycle()
	clk.Advance(31 * time.Second)
	// an ask no node can hold now: it reserves a node once it is old enough
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Allocations: []*si.Allocation{ask("app-2", "b-huge", 3900, 1<<30, 0)}})
	s.Cycle()
	clk.Advance(3 * time.Second)
	s.Cycle()
	return s, clk
}

// testHistory samples the cluster twice.
func testHistory(t testing.TB, s *rmproxy.Service) *history.History {
	t.Helper()
	h := history.New(10)
	snap, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h.Add(history.Count(snap, start.Add(time.Minute)))
	h.Add(history.Count(snap, start.Add(2*time.Minute)))
	return h
}
