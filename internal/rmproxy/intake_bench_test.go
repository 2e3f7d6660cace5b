package rmproxy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

// BenchmarkIntake measures the service goroutine's intake of one ask, from
// the SI message to a pending ask (applyAllocations: askIntake.add,
// Partition.AddAskOrKnown and what follows, the request event included),
// with no pass: 100 applications in 10 queues, requests of 1,000 asks
// sharing one resource message, as `paddock bench` sends them, prepared on
// the caller's goroutine (as on a busy service) and not. The SI messages
// and their preparation are built before the clock starts.
func BenchmarkIntake(b *testing.B) {
	for _, prep := range []bool{true, false} {
		b.Run(fmt.Sprintf("prepared=%v", prep), func(b *testing.B) {
			var qs strings.Builder
			qs.WriteString("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: \"*\"\n        queues:\n")
			for i := range 10 {
				fmt.Fprintf(&qs, "          - name: q%d\n", i)
			}
			clk := clock.NewVirtual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			s := NewManual(clk)
			if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: qs.String()}, newRecorder()); err != nil {
				b.Fatal(err)
			}
			var apps []*si.AddApplicationRequest
			for i := range 100 {
				apps = append(apps, &si.AddApplicationRequest{ApplicationID: fmt.Sprintf("app-%05d", i),
					QueueName: fmt.Sprintf("root.q%d", i%10), Ugi: &si.UserGroupInformation{User: fmt.Sprintf("user%d", i%50)}})
			}
			_ = s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: apps})
			s.Cycle()
			shared := res(1000, 1<<30)
			var reqs []*si.AllocationRequest
			var pres []*prepared
			for i := 0; i < b.N; i += 1000 {
				var asks []*si.Allocation
				for j := i; j < min(i+1000, b.N); j++ {
					asks = append(asks, &si.Allocation{AllocationKey: fmt.Sprintf("ask-%07d", j),
						ApplicationID: fmt.Sprintf("app-%05d", j%100), ResourcePerAlloc: shared})
				}
				req := &si.AllocationRequest{RmID: "rm1", Allocations: asks}
				var pr *prepared
				if prep {
					reg, _, err := s.registered("AllocationRequest", "rm1")
					if err != nil {
						b.Fatal(err)
					}
					pr = prepare(reg, req)
				}
				reqs, pres = append(reqs, req), append(pres, pr)
			}
			now := clk.Now()
			b.ReportAllocs()
			b.ResetTimer()
			// a manual service has no goroutine of its own: the caller
			// owns the core state, as the service goroutine would
			for i, req := range reqs {
				s.applyAllocations(req, pres[i], now)
			}
			b.StopTimer()
			pending := 0
			if err := s.Inspect(func(e *engine.Engine) {
				p, err := e.Partition("rm1", "default")
				if err != nil {
					b.Fatal(err)
				}
				p.EachApp(func(a *app.App) bool { pending += a.PendingCount(); return true })
			}); err != nil {
				b.Fatal(err)
			}
			if pending != b.N {
				b.Fatalf("%d asks pending of %d", pending, b.N)
			}
		})
	}
}
