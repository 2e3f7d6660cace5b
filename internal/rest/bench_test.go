package rest

import (
	"context"
	"fmt"
	"github.com/paddock-sched/paddock/callback"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// large is a cluster of 5,000 nodes with 50,000 allocations in 500
// applications, fed through the SI.
func large(b *testing.B) *rmproxy.Service {
	s := rmproxy.NewManual(clock.NewVirtual(start))
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm-1", Config: testConfig}, callback.Nop{}); err != nil {
		b.Fatal(err)
	}
	var nodes []*si.NodeInfo
	for i := range 5000 {
		nodes = append(nodes, &si.NodeInfo{NodeID: fmt.Sprintf("node-%05d", i), Action: si.NodeInfo_CREATE, SchedulableResource: res(64000, 256<<30)})
	}
	s.UpdateNode(&si.NodeRequest{RmID: "rm-1", Nodes: nodes})
	var apps []*si.AddApplicationRequest
	for i := range 500 {
		apps = append(apps, &si.AddApplicationRequest{ApplicationID: fmt.Sprintf("app-%03d", i), QueueName: "root.b", Ugi: ugi(fmt.Sprint("u", i%20))})
	}
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm-1", New: apps})
	var allocs []*si.Allocation
	for i := range 50000 {
		allocs = append(allocs, &si.Allocation{
			AllocationKey: fmt.Sprintf("alloc-%06d", i), ApplicationID: fmt.Sprintf("app-%03d", i%500),
			NodeID: fmt.Sprintf("node-%05d", i%5000), ResourcePerAlloc: res(1000, 1<<30),
		})
	}
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Allocations: allocs})
	s.Cycle()
	if _, err := s.Snapshot(context.Background()); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkEndpoints serves endpoints of the large cluster from one
// snapshot (the snapshot build is measured in internal/core/snapshot).
func BenchmarkEndpoints(b *testing.B) {
	h := New(large(b), Options{})
	for _, path := range []string{
		"/ws/v1/partitions",
		"/ws/v1/partition/default/queues",
		"/ws/v1/scheduler/node-utilizations",
		"/ws/v1/partition/default/application/app-001",
		"/ws/v1/partition/default/nodes",
	} {
		b.Run(path, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
				b.SetBytes(int64(w.Body.Len()))
			}
		})
	}
}
