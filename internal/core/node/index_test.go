package node

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

func vec(cpu, mem int64) resource.Vector {
	var v resource.Vector
	v[resource.VCoreIndex] = cpu
	v[resource.MemoryIndex] = mem
	return v
}

// bruteOrder is the policy order computed from scratch.
func bruteOrder(x *Index, nodes []*Node) []*Node {
	out := slices.Clone(nodes)
	slices.SortFunc(out, func(a, b *Node) int {
		ka, kb := x.sortKey(a), x.sortKey(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	return out
}

func bruteFirst(x *Index, nodes []*Node, ask resource.Vector, after *Node) *Node {
	seen := after == nil
	for _, n := range bruteOrder(x, nodes) {
		if !seen {
			seen = n == after
			continue
		}
		if n.Eligible() && ask.Fits(n.Available()) {
			return n
		}
	}
	return nil
}

func id(n *Node) string {
	if n == nil {
		return "<nil>"
	}
	return n.ID
}

func TestIndexOrderFairAndBinPacking(t *testing.T) {
	for _, p := range []Policy{Fair, BinPacking} {
		x := NewIndex(p, resource.DefaultWeights())
		a := New("a", vec(4000, 4096), nil)
		b := New("b", vec(4000, 4096), nil)
		c := New("c", vec(4000, 4096), nil)
		b.Allocated = vec(2000, 2048) // 50%
		c.Allocated = vec(1000, 1024) // 25%
		for _, n := range []*Node{a, b, c} {
			x.Add(n)
		}
		var got []string
		x.Ascend(func(n *Node) bool { got = append(got, n.ID); return true })
		want := []string{"a", "c", "b"}
		if p == BinPacking {
			want = []string{"b", "c", "a"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("policy %d: order %v, want %v", p, got, want)
		}
		// 2.5 cores fit on a (4 free) and c (3 free), not on b (2 free)
		wantFirst := map[Policy]string{Fair: "a", BinPacking: "c"}[p]
		if f := firstOf(x, vec(2500, 1)); id(f) != wantFirst {
			t.Errorf("policy %d: First(2500m) = %s, want %s", p, id(f), wantFirst)
		}
	}
}

func TestIndexSkipsIneligible(t *testing.T) {
	x := NewIndex(Fair, resource.DefaultWeights())
	a := New("a", vec(1000, 1000), nil)
	b := New("b", vec(1000, 1000), nil)
	x.Add(a)
	x.Add(b)
	a.Schedulable = false
	x.Update(a)
	if f := firstOf(x, vec(1, 1)); id(f) != "b" {
		t.Fatalf("First = %s, want b (a is draining)", id(f))
	}
	b.ReservedFor = "ask-1"
	x.Update(b)
	if f := firstOf(x, vec(1, 1)); f != nil {
		t.Fatalf("First = %s, want none (a draining, b reserved)", id(f))
	}
	a.Schedulable = true
	x.Update(a)
	if f := firstOf(x, vec(1, 1)); id(f) != "a" {
		t.Fatalf("First = %s, want a", id(f))
	}
}

func TestIndexMatchesBruteForce(t *testing.T) {
	for _, p := range []Policy{Fair, BinPacking} {
		for seed := uint64(1); seed <= 30; seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(p)))
			x := NewIndex(p, resource.DefaultWeights())
			var nodes []*Node
			for i := range 1 + rng.IntN(60) {
				n := New(fmt.Sprintf("n%03d", i), vec(int64(1+rng.IntN(8))*1000, int64(1+rng.IntN(8))*1024), nil)
				nodes = append(nodes, n)
				x.Add(n)
			}
			for step := range 300 {
				n := nodes[rng.IntN(len(nodes))]
				switch rng.IntN(5) {
				case 0:
					n.Schedulable = !n.Schedulable
				case 1:
					if n.ReservedFor == "" {
						n.ReservedFor = "r"
					} else {
						n.ReservedFor = ""
					}
				case 2:
					n.Allocated = resource.Vector{}
				default:
					ask := vec(int64(rng.IntN(3000)), int64(rng.IntN(3000)))
					if ask.Fits(n.Available()) {
						n.Allocated = n.Allocated.Add(ask)
					}
				}
				x.Update(n)
				ask := vec(int64(1+rng.IntN(4000)), int64(1+rng.IntN(4000)))
				if got, want := x.First(&ask), bruteFirst(x, nodes, ask, nil); got != want {
					t.Fatalf("policy %d seed %d step %d: First(%v) = %s, want %s", p, seed, step, ask, id(got), id(want))
				}
				after := nodes[rng.IntN(len(nodes))]
				if got, want := x.Next(&ask, after), bruteFirst(x, nodes, ask, after); got != want {
					t.Fatalf("policy %d seed %d step %d: Next(%v, %s) = %s, want %s", p, seed, step, ask, after.ID, id(got), id(want))
				}
			}
			var order []*Node
			x.Ascend(func(n *Node) bool { order = append(order, n); return true })
			if want := bruteOrder(x, nodes); !slices.Equal(order, want) || x.Len() != len(nodes) {
				t.Fatalf("policy %d seed %d: order differs from brute force", p, seed)
			}
		}
	}
}

func TestIndexRemoveAndReconfigure(t *testing.T) {
	x := NewIndex(Fair, resource.DefaultWeights())
	var nodes []*Node
	for i := range 10 {
		n := New(fmt.Sprintf("n%d", i), vec(10000, 10000), nil)
		n.Allocated = vec(int64(i)*1000, int64(i)*1000)
		nodes = append(nodes, n)
		x.Add(n)
	}
	x.Add(nodes[0]) // no-op
	x.Remove(nodes[0])
	x.Remove(nodes[0]) // no-op
	if x.Len() != 9 {
		t.Fatalf("Len = %d, want 9", x.Len())
	}
	if f := firstOf(x, vec(1, 1)); id(f) != "n1" {
		t.Fatalf("fair First = %s, want n1 (least loaded after n0 removed)", id(f))
	}
	x.Reconfigure(BinPacking, resource.DefaultWeights())
	if f := firstOf(x, vec(1, 1)); id(f) != "n9" {
		t.Fatalf("binpacking First = %s, want n9 (most loaded)", id(f))
	}
	if f := firstOf(x, vec(2000, 1)); id(f) != "n8" {
		t.Fatalf("binpacking First(2 cores) = %s, want n8", id(f))
	}
}

func benchIndex(b *testing.B, nodes int, p Policy) {
	x := NewIndex(p, resource.DefaultWeights())
	all := make([]*Node, nodes)
	for i := range all {
		all[i] = New(fmt.Sprintf("node-%05d", i), vec(64000, 256<<30), nil)
		x.Add(all[i])
	}
	ask := vec(1000, 4<<30)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := x.First(&ask)
		if n == nil { // cluster full: empty it and go on
			b.StopTimer()
			for _, m := range all {
				m.Allocated = resource.Vector{}
				x.Update(m)
			}
			b.StartTimer()
			continue
		}
		n.Allocated = n.Allocated.Add(ask)
		x.Update(n)
	}
}

// BenchmarkIndexAllocate is the node half of one scheduling decision: find
// the first node an ask fits on and re-position it after the allocation.
func BenchmarkIndexAllocate(b *testing.B) {
	for _, n := range []int{1000, 5000, 10000, 50000} {
		b.Run(fmt.Sprintf("fair/nodes=%d", n), func(b *testing.B) { benchIndex(b, n, Fair) })
		b.Run(fmt.Sprintf("binpacking/nodes=%d", n), func(b *testing.B) { benchIndex(b, n, BinPacking) })
	}
}

func TestIndexNewResourceTypeLater(t *testing.T) {
	x := NewIndex(Fair, resource.DefaultWeights())
	var nodes []*Node
	for i := range 50 {
		n := New(fmt.Sprintf("n%02d", i), vec(4000, 4096), nil)
		nodes = append(nodes, n)
		x.Add(n)
	}
	// a GPU (type 2) appears on a node that is already indexed, and on a
	// node added later
	gpu := vec(1, 1)
	gpu[2] = 1
	nodes[17].Capacity[2] = 2
	x.Update(nodes[17])
	if f := x.First(&gpu); id(f) != "n17" {
		t.Fatalf("First(gpu) = %s, want n17", id(f))
	}
	nodes[17].Allocated = nodes[17].Allocated.Add(gpu).Add(gpu)
	x.Update(nodes[17])
	if f := x.First(&gpu); f != nil {
		t.Fatalf("First(gpu) = %s, want none (both GPUs used)", id(f))
	}
	late := New("late", vec(4000, 4096), nil)
	late.Capacity[5] = 1
	late.Capacity[2] = 1
	x.Add(late)
	if f := x.First(&gpu); id(f) != "late" {
		t.Fatalf("First(gpu) = %s, want late", id(f))
	}
	var other resource.Vector
	other[9] = 1 // a type no node has
	if f := x.First(&other); f != nil {
		t.Fatalf("First(type 9) = %s, want none", id(f))
	}
}

// TestIndexUpdateOnWidens checks that UpdateOn, which reads only the
// changed types, still widens the index when an allocation holds a type
// beyond every node's (one the RM placed itself): the node's column for
// that type goes negative, so no ask of the type fits it, and the vector
// loops cover it from then on.
func TestIndexUpdateOnWidens(t *testing.T) {
	x := NewIndex(Fair, resource.DefaultWeights())
	a, b := New("a", vec(4000, 4096), nil), New("b", vec(4000, 4096), nil)
	a.Capacity[4], b.Capacity[4] = 1, 1
	x.Add(a)
	x.Add(b)
	forced := vec(10, 10)
	forced[4], forced[7] = 1, 1 // type 7: no node has it
	a.Allocated = a.Allocated.Add(forced)
	x.UpdateOn(a, forced.Support())
	if x.width != 8 {
		t.Fatalf("width %d after an allocation of type 7, want 8", x.width)
	}
	if err := x.root.check(x.width); err != nil {
		t.Fatal(err)
	}
	ask := vec(1, 1)
	ask[4] = 1
	if f := x.First(&ask); id(f) != "b" {
		t.Fatalf("First = %s, want b (a's type 4 is used)", id(f))
	}
	a.Allocated = resource.Vector{}
	x.UpdateOn(a, forced.Support())
	if f := x.First(&ask); f == nil {
		t.Fatal("First = none after a was freed")
	}
}

// TestLessOrdersLikeIDs checks that the packed ID prefix orders equal keys
// exactly as the IDs compare: IDs of every length around 16 bytes, shared
// prefixes, zero bytes and high bytes.
func TestLessOrdersLikeIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	alphabet := []byte{0, 1, 'a', 'b', 0x7f, 0x80, 0xff}
	id := func() string {
		b := make([]byte, rng.IntN(20))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	entry := func(s string) *ekey {
		e := &ekey{node: &Node{ID: s}}
		id := app.PackID(s)
		e.id0, e.id1 = id[0], id[1]
		return e
	}
	for range 200000 {
		a, b := id(), id()
		if rng.IntN(4) == 0 { // b extends a
			b = a + b
		}
		if got, want := entry(a).less(entry(b)), a < b; got != want {
			t.Fatalf("less(%q, %q) = %v, want %v", a, b, got, want)
		}
	}
}

// firstOf is Index.First of a vector that is not in a variable.
func firstOf(x *Index, ask resource.Vector) *Node { return x.First(&ask) }
