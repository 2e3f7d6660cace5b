package node

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paddock-sched/paddock/internal/resource"
)

// TestPageOpenAndCut opens room in and cuts slots from leaves with every
// window lo..hi, at every place: the entries keep their order around the
// room or the gap, the slots outside the window are clear, and the
// columns move with the entries (whichever side moved, and when the
// window had to move to the start of the page first).
func TestPageOpenAndCut(t *testing.T) {
	x := NewIndex(Fair, resource.DefaultWeights())
	x.width = 2
	nodes := make([]*Node, fan)
	for i := range nodes {
		nodes[i] = &Node{ID: fmt.Sprint(i)}
	}
	fill := func(lo, hi int) *page {
		p := &page{leaf: true, lo: lo, hi: hi}
		for j := lo; j < hi; j++ {
			p.k[j] = ekey{key: float64(j - lo), node: nodes[j-lo]}
			p.max[0][j], p.max[1][j] = int64(j-lo), int64(100+j-lo)
		}
		return p
	}
	// entries returns the window as entry numbers, -1 for a room slot.
	entries := func(p *page) ([]int, error) {
		var got []int
		for j := 0; j < fan; j++ {
			in := j >= p.lo && j < p.hi
			if !in && (p.k[j] != ekey{}) {
				return nil, fmt.Errorf("slot %d outside %d..%d not clear", j, p.lo, p.hi)
			}
			if !in {
				continue
			}
			if p.k[j].node == nil {
				got = append(got, -1)
				continue
			}
			e := int(p.k[j].key)
			if p.max[0][j] != int64(e) || p.max[1][j] != int64(100+e) {
				return nil, fmt.Errorf("slot %d: columns %d, %d for entry %d", j, p.max[0][j], p.max[1][j], e)
			}
			got = append(got, e)
		}
		return got, nil
	}
	for lo := 0; lo <= fan; lo++ {
		for hi := lo; hi <= fan; hi++ {
			n := hi - lo
			for _, k := range []int{1, 2, 5, fan / 4} {
				if n+k > fan {
					continue
				}
				for i := lo; i <= hi; i++ {
					p := fill(lo, hi)
					r := x.open(p, i, k)
					clear(p.k[r : r+k]) // the caller's to fill
					got, err := entries(p)
					want := make([]int, 0, n+k)
					for e := range n {
						if e == i-lo {
							want = append(want, slices.Repeat([]int{-1}, k)...)
						}
						want = append(want, e)
					}
					if i == hi {
						want = append(want, slices.Repeat([]int{-1}, k)...)
					}
					if err != nil || !slices.Equal(got, want) || r < p.lo || r+k > p.hi || p.k[r].node != nil {
						t.Fatalf("open(%d..%d, at %d, %d) = %d: window %d..%d %v (%v), want %v", lo, hi, i, k, r, p.lo, p.hi, got, err, want)
					}
				}
			}
			for i := lo; i < hi; i++ {
				p := fill(lo, hi)
				x.cut(p, i)
				got, err := entries(p)
				var want []int
				for e := range n {
					if e != i-lo {
						want = append(want, e)
					}
				}
				if err != nil || !slices.Equal(got, want) || (p.lo == p.hi && p.lo != 0) {
					t.Fatalf("cut(%d..%d, %d): window %d..%d %v (%v), want %v", lo, hi, i, p.lo, p.hi, got, err, want)
				}
			}
		}
	}
}

// TestIndexSuffixStaysRight drives the Fair allocation cycle (the front
// leaf drains, so windows start mid-page and the suffix maxima serve the
// recomputations) mixed with changes anywhere: nodes updated in place,
// removed, added, so leaves whose window starts mid-page split and merge.
// After every step each page the index holds a suffix for must still
// match it, and the structure and First are checked against scratch.
func TestIndexSuffixStaysRight(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	x := NewIndex(Fair, resource.DefaultWeights())
	var live []*Node
	next := 0
	add := func() {
		n := New(fmt.Sprintf("node-%05d", next), vec(64000, 64000), nil)
		n.Allocated = modelVec(rng, 2, 1000)
		next++
		live = append(live, n)
		x.Add(n)
	}
	for range 1500 {
		add()
	}
	held, midPage := 0, 0
	for step := range 30000 {
		switch r := rng.IntN(100); {
		case r < 80: // the partition's pattern
			ask := vec(1000, 1000)
			if n := x.First(&ask); n != nil {
				n.Allocated = n.Allocated.Add(ask)
				x.Update(n)
			} else {
				for _, n := range live {
					n.Allocated = modelVec(rng, 2, 1000)
					x.Update(n)
				}
			}
		case r < 90:
			n := live[rng.IntN(len(live))]
			n.Allocated = n.Allocated.Add(vec(rng.Int64N(3), rng.Int64N(3)))
			x.Update(n)
		case r < 95 && len(live) > 200:
			j := rng.IntN(len(live))
			x.Remove(live[j])
			live = slices.Delete(live, j, j+1)
		default:
			add()
		}
		for _, s := range x.sfx {
			p := s.p
			if p == nil || !p.sfx {
				continue
			}
			held++
			if p.lo > 0 {
				midPage++
			}
			for c := range x.width {
				m := p.max[c][p.hi-1]
				for j := p.hi - 1; j > p.lo; j-- {
					m = max(m, p.max[c][j])
					if s.max[c][j] != m {
						t.Fatalf("step %d: suffix of slot %d type %d is %d, the slots' maximum %d", step, j, c, s.max[c][j], m)
					}
				}
			}
		}
		if step%500 == 0 {
			if err := x.root.check(x.width); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			for range 10 {
				ask := modelVec(rng, 2, 3000)
				var want *Node
				x.Ascend(func(n *Node) bool {
					if (n.Eligible() || ask.Fits(resource.Vector{})) && ask.Fits(x.column(n)) {
						want = n
						return false
					}
					return true
				})
				if got := x.First(&ask); got != want {
					t.Fatalf("step %d: First(%v) = %s, want %s", step, ask, id(got), id(want))
				}
			}
		}
	}
	if held < 1000 || midPage < 1000 {
		t.Fatalf("suffix held on %d steps, %d of them for a window starting mid-page: the test misses its case", held, midPage)
	}
}
