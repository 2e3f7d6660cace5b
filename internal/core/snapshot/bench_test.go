package snapshot

import (
	"fmt"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/core/partition"
	"github.com/paddock-sched/paddock/internal/resource"
)

const benchConfig = `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
          - name: b
          - name: c
          - name: d
`

// scaled builds an engine with the given numbers of nodes, applications,
// allocations (spread evenly) and pending asks per application.
func scaled(tb testing.TB, nodes, apps, allocs, asks int) *engine.Engine {
	tb.Helper()
	e := engine.New()
	if err := e.RegisterRM("rm", "", benchConfig, nil); err != nil {
		tb.Fatal(err)
	}
	p, err := e.Partition("rm", "default")
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Unix(1_700_000_000, 0)
	vec := func(cpu, mem int64) resource.Vector {
		var v resource.Vector
		v[resource.VCoreIndex], v[resource.MemoryIndex] = cpu, mem
		return v
	}
	for i := range nodes {
		attrs := map[string]string{"si/hostname": fmt.Sprint("host", i)}
		if err := p.AddNode(fmt.Sprintf("node-%05d", i), vec(64000, 256<<30), resource.Vector{}, attrs, true); err != nil {
			tb.Fatal(err)
		}
	}
	queues := []string{"root.a", "root.b", "root.c", "root.d"}
	for i := range apps {
		r := partition.AppRequest{ID: fmt.Sprintf("app-%05d", i), Queue: queues[i%len(queues)], User: fmt.Sprint("user", i%50), Groups: []string{"g"}}
		if err := p.AddApp(r, now); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range allocs {
		x := &app.Allocation{
			Key: fmt.Sprintf("alloc-%06d", i), AppID: fmt.Sprintf("app-%05d", i%apps),
			NodeID: fmt.Sprintf("node-%05d", i%nodes), Res: vec(1000, 1<<30),
			Tags: map[string]string{"kubernetes.io/meta/podName": fmt.Sprint("pod", i)},
		}
		if err := p.AddAllocation(x, now); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range apps {
		for j := range asks {
			x := &app.Allocation{Key: fmt.Sprintf("ask-%05d-%d", i, j), AppID: fmt.Sprintf("app-%05d", i), Res: vec(128000, 1<<30)}
			if err := p.AddAsk(x, now); err != nil {
				tb.Fatal(err)
			}
		}
	}
	e.Step(now)
	p.Out.Take()
	return e
}

// BenchmarkBuild measures one snapshot build at 5,000 nodes, 50,000
// allocations in 500 applications and 5,000 pending asks.
func BenchmarkBuild(b *testing.B) {
	e := scaled(b, 5000, 500, 50000, 10)
	var bld Builder
	gen := uint64(0)
	b.ReportAllocs()
	for b.Loop() {
		gen++
		s := bld.Build(e, Inputs{Generation: gen})
		if s.Partitions[0].Allocations != 50000 {
			b.Fatalf("%d allocations", s.Partitions[0].Allocations)
		}
	}
}
