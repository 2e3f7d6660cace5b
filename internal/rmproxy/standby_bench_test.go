package rmproxy

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

// firstAlloc is an RM that notes when it hears of its first allocation.
type firstAlloc struct {
	recorder
	once  sync.Once
	first chan time.Time
}

func (f *firstAlloc) UpdateAllocation(resp *si.AllocationResponse) error {
	if len(resp.New) > 0 {
		f.once.Do(func() { f.first <- time.Now() })
	}
	return nil
}

// BenchmarkActivate measures a takeover in the core: a standby holding
// 1,000 nodes and 10,000 pending asks of 100 applications is activated,
// and the time from the call to the RM's first allocation is reported
// (activate-to-first-ms); ns/op is that plus the scheduler's next turn
// (the pass may give way before it ends: PassSlice).
func BenchmarkActivate(b *testing.B) {
	var total time.Duration
	for range b.N {
		b.StopTimer()
		s := New(clock.Real{})
		s.Fence()
		rm := &firstAlloc{first: make(chan time.Time, 1)}
		if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rm); err != nil {
			b.Fatal(err)
		}
		var nodes []*si.NodeInfo
		for i := range 1000 {
			nodes = append(nodes, &si.NodeInfo{NodeID: fmt.Sprint("n", i), Action: si.NodeInfo_CREATE, SchedulableResource: res(16000, 64<<30)})
		}
		_ = s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: nodes})
		var apps []*si.AddApplicationRequest
		for a := range 100 {
			apps = append(apps, &si.AddApplicationRequest{ApplicationID: fmt.Sprint("app", a), QueueName: "root.a", PartitionName: "default", Ugi: &si.UserGroupInformation{User: "u"}})
		}
		_ = s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: apps})
		for a := range 100 {
			var asks []*si.Allocation
			for k := range 100 {
				asks = append(asks, &si.Allocation{AllocationKey: fmt.Sprint("app", a, "-", k), ApplicationID: fmt.Sprint("app", a), PartitionName: "default", ResourcePerAlloc: res(200, 512<<20)})
			}
			_ = s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks})
		}
		_ = s.Inspect(func(*engine.Engine) {}) // all taken in
		b.StartTimer()
		start := time.Now()
		if err := s.Activate(); err != nil {
			b.Fatal(err)
		}
		total += (<-rm.first).Sub(start)
		_ = s.Inspect(func(*engine.Engine) {}) // the pass ran
		b.StopTimer()
		s.Stop()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "activate-to-first-ms")
}
