package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/paddock-sched/paddock/callback"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/health"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// TestConcurrentReaders has many REST readers while the service goroutine
// schedules: every response is well formed, container counts only grow,
// and every snapshot a reader sees passes the health checks. Run it with
// -race.
func TestConcurrentReaders(t *testing.T) {
	s := rmproxy.New(clock.Real{})
	defer s.Stop()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm-1", Config: testConfig}, callback.Nop{}); err != nil {
		t.Fatal(err)
	}
	var nodes []*si.NodeInfo
	for i := range 8 {
		nodes = append(nodes, &si.NodeInfo{NodeID: fmt.Sprint("n", i), Action: si.NodeInfo_CREATE, SchedulableResource: res(16000, 64<<30)})
	}
	s.UpdateNode(&si.NodeRequest{RmID: "rm-1", Nodes: nodes})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm-1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app-1", QueueName: "root.b", Ugi: ugi("alice")},
	}})
	checker := health.New(s, time.Hour)
	h := New(s, Options{Health: checker})

	const total = 200
	var done atomic.Bool
	var wg sync.WaitGroup
	paths := []string{
		"/ws/v1/partitions", "/ws/v1/partition/default/queues", "/ws/v1/partition/default/nodes",
		"/ws/v1/partition/default/applications/active", "/ws/v1/scheduler/node-utilizations",
		"/ws/v1/partition/default/usage/users", "/debug/fullstatedump",
	}
	var reads atomic.Int64
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for j := 0; !done.Load() || j < 5; j++ {
				w := do(t, h, request{path: paths[(i+j)%len(paths)]})
				if w.Code != http.StatusOK || !json.Valid(w.Body.Bytes()) {
					t.Errorf("%s: %d %s", paths[(i+j)%len(paths)], w.Code, w.Body)
					return
				}
				reads.Add(1)
				pw := do(t, h, request{path: "/ws/v1/partitions"})
				var ps []PartitionInfo
				if err := json.Unmarshal(pw.Body.Bytes(), &ps); err != nil || len(ps) != 2 || ps[0].Name != "default" {
					t.Errorf("partitions: %v %s", err, pw.Body)
					return
				}
				if ps[0].TotalContainers < last {
					t.Errorf("containers went from %d to %d", last, ps[0].TotalContainers)
				}
				last = ps[0].TotalContainers
			}
		}()
	}
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				if r := checker.Check(context.Background()); !r.Healthy {
					t.Errorf("unhealthy snapshot: %+v", r)
					return
				}
				_ = i
			}
		}()
	}
	for i := range total {
		s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Allocations: []*si.Allocation{
			{AllocationKey: fmt.Sprint("k", i), ApplicationID: "app-1", ResourcePerAlloc: res(100, 1<<20)},
		}})
		if i%20 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		w := do(t, h, request{path: "/ws/v1/partition/default/application/app-1"})
		var a AppInfo
		_ = json.Unmarshal(w.Body.Bytes(), &a)
		if len(a.Allocations) == total {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d allocations visible", len(a.Allocations), total)
		}
		time.Sleep(time.Millisecond)
	}
	done.Store(true)
	wg.Wait()
	if reads.Load() == 0 {
		t.Fatal("no reads")
	}
}
