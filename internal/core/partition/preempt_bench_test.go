package partition

import (
	"fmt"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

const preemptBenchConfig = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources: {guaranteed: {vcore: 100000}}
          - name: b
            queues:
`

// BenchmarkPreemptionDecision measures one preemption decision (choosing
// the node and the victims; nothing is applied) at 5,000 nodes holding
// 50,000 running allocations of 100 applications in 10 queues.
func BenchmarkPreemptionDecision(b *testing.B) {
	cfg := preemptBenchConfig
	for i := range 10 {
		cfg += fmt.Sprintf("              - name: q%d\n", i)
	}
	p := mustPartition(b, cfg)
	for i := range 5000 {
		p.AddNode(fmt.Sprintf("node-%06d", i), vec(10000, 40<<30), resource.Vector{}, nil, true)
	}
	for i := range 100 {
		p.AddApp(AppRequest{ID: fmt.Sprint("app", i), Queue: fmt.Sprintf("root.b.q%d", i%10), User: "u"}, t0)
	}
	for i := range 50000 {
		p.AddAsk(&app.Allocation{Key: fmt.Sprint("k", i), AppID: fmt.Sprint("app", i%100), Res: vec(1000, 4<<30), Priority: int32(i % 3)}, t0)
	}
	if got := p.Schedule(t0); got != 50000 {
		b.Fatalf("placed %d of 50000", got)
	}
	p.AddApp(AppRequest{ID: "preemptor", Queue: "root.a", User: "v"}, t0)
	x := &app.Allocation{Key: "big", AppID: "preemptor", Res: vec(3000, 8<<30), Priority: 5, PreemptOther: true}
	if err := p.AddAsk(x, t0); err != nil {
		b.Fatal(err)
	}
	leaf := p.leafOf(p.apps["preemptor"])
	now := t0.Add(time.Minute)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		plan, ok := p.planPreemption(leaf, x, now)
		if !ok || len(plan.victims) != 3 {
			b.Fatalf("plan = %v, %v; want 3 victims", plan.victims, ok)
		}
	}
}
