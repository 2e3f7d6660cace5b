package partition

import (
	"fmt"
	"strings"
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

// preemptBench is 5,000 nodes holding 50,000 running allocations of 100
// applications in 10 queues of root.b, and a guaranteed queue root.a.
func preemptBench(b *testing.B) *Partition {
	cfg := preemptBenchConfig
	for i := range 10 {
		cfg += fmt.Sprintf("              - name: q%d\n", i)
	}
	cfg = strings.Replace(cfg, "guaranteed: {vcore: 100000}}", "guaranteed: {vcore: 100000}}\n            properties: {application.sort.policy: fifo}", 1)
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
	return p
}

// BenchmarkGangPreemptionDecision measures planning the victims for a
// whole gang of 8 placeholders of 3,000 vcore (nothing is applied) on the
// cluster of BenchmarkPreemptionDecision.
func BenchmarkGangPreemptionDecision(b *testing.B) {
	p := preemptBench(b)
	if err := p.AddApp(AppRequest{ID: "gang", Queue: "root.a", User: "v", PlaceholderAsk: vec(24000, 64<<30)}, t0); err != nil {
		b.Fatal(err)
	}
	for i := range 8 {
		x := &app.Allocation{Key: fmt.Sprint("ph", i), AppID: "gang", Res: vec(3000, 8<<30), Priority: 5, PreemptOther: true, Placeholder: true, TaskGroup: "tg"}
		if err := p.AddAsk(x, t0); err != nil {
			b.Fatal(err)
		}
	}
	a := p.apps["gang"]
	phs, sum := pendingPlaceholders(a)
	leaf := p.leafOf(a)
	now := t0.Add(time.Minute)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		plans, ok := p.planGangPreemption(leaf, phs, sum, now)
		if !ok || len(plans) != 8 {
			b.Fatalf("plans = %d, %v; want 8", len(plans), ok)
		}
	}
	b.StopTimer()
	if err := p.Verify(); err != nil {
		b.Fatal(err) // the trial left nothing behind
	}
}

// BenchmarkPreemptionDecision measures one preemption decision (choosing
// the node and the victims; nothing is applied) at 5,000 nodes holding
// 50,000 running allocations of 100 applications in 10 queues.
func BenchmarkPreemptionDecision(b *testing.B) {
	p := preemptBench(b)
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
