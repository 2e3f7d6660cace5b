package rmproxy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
)

// allocCounter is an RM that counts the allocations it hears of, and
// those that name a node and carry resources, and records nothing else
// (the test recorder's log would cost more than the delivery).
type allocCounter struct {
	*recorder
	n, placed int
}

func (c *allocCounter) UpdateAllocation(resp *si.AllocationResponse) error {
	c.n += len(resp.New)
	for _, a := range resp.New {
		if a.NodeID != "" && a.ResourcePerAlloc != nil {
			c.placed++
		}
	}
	return nil
}

// BenchmarkDeliver measures the delivery of one allocation to the RM
// (deliver: the SI message of each new allocation, one AllocationResponse
// for them all), the RM's own work on it left out: b.N asks of 100
// applications in 10 queues placed on 1,000 nodes by one pass before the
// clock starts, then delivered. It fails unless the RM hears of every
// allocation, with its node and resources.
func BenchmarkDeliver(b *testing.B) {
	var qs strings.Builder
	qs.WriteString("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: \"*\"\n        queues:\n")
	for i := range 10 {
		fmt.Fprintf(&qs, "          - name: q%d\n", i)
	}
	clk := clock.NewVirtual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s := NewManual(clk)
	rm := &allocCounter{recorder: newRecorder()}
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: qs.String()}, rm); err != nil {
		b.Fatal(err)
	}
	var nodes []*si.NodeInfo
	for i := range 1000 {
		nodes = append(nodes, &si.NodeInfo{NodeID: fmt.Sprintf("node-%05d", i), Action: si.NodeInfo_CREATE, SchedulableResource: res(1<<30, 1<<44)})
	}
	_ = s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: nodes})
	var apps []*si.AddApplicationRequest
	for i := range 100 {
		apps = append(apps, &si.AddApplicationRequest{ApplicationID: fmt.Sprintf("app-%05d", i),
			QueueName: fmt.Sprintf("root.q%d", i%10), Ugi: &si.UserGroupInformation{User: fmt.Sprintf("user%d", i%50)}})
	}
	_ = s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: apps})
	s.Cycle() // nodes and applications accepted, delivered
	shared := res(1000, 1<<30)
	var asks []*si.Allocation
	for i := range b.N {
		asks = append(asks, &si.Allocation{AllocationKey: fmt.Sprintf("ask-%07d", i),
			ApplicationID: fmt.Sprintf("app-%05d", i%100), ResourcePerAlloc: shared})
	}
	_ = s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks})
	// Cycle without its delivery: the caller owns the core state, as the
	// service goroutine would
	s.mu.Lock()
	work := s.takeLocked()
	s.mu.Unlock()
	now := clk.Now()
	for _, r := range work {
		r.apply(now)
	}
	if made := s.step(now); made != b.N {
		b.Fatalf("placed %d of %d", made, b.N)
	}
	s.afterStep(len(work), b.N)
	b.ReportAllocs()
	b.ResetTimer()
	s.deliver(now, false)
	b.StopTimer()
	if rm.n != b.N || rm.placed != b.N {
		b.Fatalf("the RM heard of %d allocations (%d with a node and resources) of %d", rm.n, rm.placed, b.N)
	}
}
