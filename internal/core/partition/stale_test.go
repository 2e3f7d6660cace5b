package partition

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/resource"
)

// TestRecoveredAllocationsKeepNodeOrder: allocations recovered in a burst
// move their nodes in the index only when it is next read (markStale); the
// order seen then, and the node a new ask lands on, are those of the nodes'
// real use, also after a stale node is removed or updated meanwhile.
func TestRecoveredAllocationsKeepNodeOrder(t *testing.T) {
	p := mustPartition(t, twoQueues)
	const nodes = 40
	for i := range nodes {
		if err := p.AddNode(fmt.Sprintf("n%02d", i), vec(64000, 1<<20), resource.Vector{}, nil, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.AddApp(AppRequest{ID: "app", Queue: "root.b", User: "u"}, t0); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 600 {
		x := &app.Allocation{Key: fmt.Sprint("r", k), AppID: "app", NodeID: fmt.Sprintf("n%02d", rng.IntN(nodes)),
			Res: vec(int64(1+rng.IntN(200)), int64(1+rng.IntN(1000)))}
		if err := p.AddAllocation(x, t0); err != nil {
			t.Fatal(err)
		}
	}
	if len(p.stale) == 0 {
		t.Fatal("no node waits for its place: the recovered allocations moved them one by one")
	}
	if err := p.RemoveNode("n07", t0); err != nil {
		t.Fatal(err)
	}
	if err := p.UpdateNode("n11", vec(32000, 1<<19), resource.Vector{}); err != nil {
		t.Fatal(err)
	}
	checkOrder(t, p)
	if len(p.stale) != 0 {
		t.Fatalf("%d nodes still wait after a read", len(p.stale))
	}

	// the next ask goes to the least used node (fair), as if every node had
	// moved at once
	var want *node.Node
	p.EachNode(func(n *node.Node) bool { want = n; return false })
	if err := p.AddAsk(&app.Allocation{Key: "new", AppID: "app", Res: vec(1, 1)}, t0); err != nil {
		t.Fatal(err)
	}
	if got := p.Schedule(t0); got != 1 {
		t.Fatalf("allocated %d, want 1", got)
	}
	a, _ := p.App("app")
	var got string
	a.Each(func(x *app.Allocation) bool {
		if x.Key == "new" {
			got = x.NodeID
		}
		return true
	})
	if got != want.ID {
		t.Errorf("new ask on %s, want the least used node %s", got, want.ID)
	}
	if err := p.Verify(); err != nil {
		t.Error(err)
	}
}

// checkOrder compares the index's order with the nodes sorted afresh by
// their score, then ID.
func checkOrder(t *testing.T, p *Partition) {
	t.Helper()
	var seen []*node.Node
	p.EachNode(func(n *node.Node) bool { seen = append(seen, n); return true })
	if len(seen) != len(p.nodes) {
		t.Fatalf("index holds %d nodes, the partition %d", len(seen), len(p.nodes))
	}
	sorted := slices.Clone(seen)
	slices.SortFunc(sorted, func(a, b *node.Node) int {
		return cmp.Or(cmp.Compare(p.index.Score(a), p.index.Score(b)), cmp.Compare(a.ID, b.ID))
	})
	for i := range seen {
		if seen[i] != sorted[i] {
			t.Fatalf("index order at %d: %s (score %.4f), want %s (score %.4f)", i,
				seen[i].ID, p.index.Score(seen[i]), sorted[i].ID, p.index.Score(sorted[i]))
		}
	}
}

// BenchmarkRecoverAllocations is a resync's cost in the partition: 2,000
// nodes taking back 40,000 allocations, then the first read of the index.
func BenchmarkRecoverAllocations(b *testing.B) {
	const nodes, allocs = 2000, 40000
	for range b.N {
		b.StopTimer()
		p := mustPartition(b, twoQueues)
		for i := range nodes {
			if err := p.AddNode(fmt.Sprint("n", i), vec(64000, 1<<30), resource.Vector{}, nil, true); err != nil {
				b.Fatal(err)
			}
		}
		if err := p.AddApp(AppRequest{ID: "app", Queue: "root.b", User: "u"}, t0); err != nil {
			b.Fatal(err)
		}
		xs := make([]*app.Allocation, allocs)
		for k := range xs {
			xs[k] = &app.Allocation{Key: fmt.Sprint("r", k), AppID: "app", NodeID: fmt.Sprint("n", k%nodes), Res: vec(10, 100)}
		}
		b.StartTimer()
		for _, x := range xs {
			if err := p.AddAllocation(x, t0); err != nil {
				b.Fatal(err)
			}
		}
		p.EachNode(func(*node.Node) bool { return false })
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*allocs), "ns/alloc")
}
