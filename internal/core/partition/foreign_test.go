package partition

import (
	"fmt"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/resource"
)

// TestForeignIndex: a foreign allocation is found by its key alone, moves
// when reported on another node, and is forgotten with its node.
func TestForeignIndex(t *testing.T) {
	p := mustPartition(t, twoQueues)
	for _, id := range []string{"n1", "n2"} {
		if err := p.AddNode(id, vec(4000, 4096), resource.Vector{}, nil, true); err != nil {
			t.Fatal(err)
		}
	}
	verify := func(when string) {
		t.Helper()
		if err := p.Verify(); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
	}
	occ := func(id string) int64 { n, _ := p.Node(id); return n.Occupied[0] }

	if err := p.AddForeign("n1", "f1", node.Foreign{Res: vec(1000, 0)}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := p.AddForeign("n1", "f1", node.Foreign{Res: vec(1500, 0)}, time.Time{}); err != nil { // an update
		t.Fatal(err)
	}
	verify("after an update")
	if occ("n1") != 1500 {
		t.Fatalf("n1 occupied %d after the update, want 1500", occ("n1"))
	}
	// the same key on another node moves it
	if err := p.AddForeign("n2", "f1", node.Foreign{Res: vec(500, 0)}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	verify("after a move")
	if occ("n1") != 0 || occ("n2") != 500 {
		t.Fatalf("occupied n1 %d n2 %d after the move, want 0 and 500", occ("n1"), occ("n2"))
	}
	if !p.RemoveForeign("f1") || p.RemoveForeign("f1") {
		t.Fatal("f1 removed not exactly once")
	}
	verify("after removal")
	if occ("n2") != 0 {
		t.Fatalf("n2 occupied %d after removal", occ("n2"))
	}
	// a node's foreign allocations go with it
	if err := p.AddForeign("n2", "f2", node.Foreign{Res: vec(700, 0)}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := p.RemoveNode("n2", time.Now()); err != nil {
		t.Fatal(err)
	}
	verify("after the node went")
	if p.RemoveForeign("f2") {
		t.Error("a foreign allocation of a removed node was still found")
	}
}

// BenchmarkRemoveForeign: releasing a foreign allocation at 5,000 nodes
// (was a scan of every node).
func BenchmarkRemoveForeign(b *testing.B) {
	p := mustPartition(b, twoQueues)
	for i := range 5000 {
		_ = p.AddNode(nodeName(i), vec(16000, 1<<34), resource.Vector{}, nil, true)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		n := nodeName(i % 5000)
		if err := p.AddForeign(n, "pod", node.Foreign{Res: vec(100, 1<<20)}, time.Time{}); err != nil {
			b.Fatal(err)
		}
		if !p.RemoveForeign("pod") {
			b.Fatal("not removed")
		}
	}
}

func nodeName(i int) string { return fmt.Sprintf("node-%05d", i) }
