package node

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/paddock-sched/paddock/internal/resource"
)

// model is the naive index: the indexed nodes with the key and available
// resources recorded at their last Add or Update, in a slice sorted by
// (key, ID), and first-fit by a linear scan.
type model struct {
	policy  Policy
	weights resource.Weights
	in      map[*Node]*recorded
	sorted  []*recorded
}

type recorded struct {
	n        *Node
	key      float64
	avail    resource.Vector
	eligible bool
}

func (m *model) record(n *Node) {
	m.drop(n)
	r := m.snap(n)
	i, _ := slices.BinarySearchFunc(m.sorted, r, compareRecorded)
	m.sorted = slices.Insert(m.sorted, i, r)
	m.in[n] = r
}

// snap is what the index should record for n.
func (m *model) snap(n *Node) *recorded {
	s := resource.WeightedShare(n.Used(), n.Capacity, &m.weights)
	if math.IsNaN(s) {
		s = 0
	}
	if m.policy == BinPacking {
		s = 1 - s
	}
	return &recorded{n: n, key: s, avail: n.Available(), eligible: n.Eligible()}
}

func (m *model) drop(n *Node) {
	if r, ok := m.in[n]; ok {
		delete(m.in, n)
		i, _ := slices.BinarySearchFunc(m.sorted, r, compareRecorded)
		m.sorted = slices.Delete(m.sorted, i, i+1)
	}
}

func compareRecorded(a, b *recorded) int {
	switch {
	case a.key < b.key:
		return -1
	case a.key > b.key:
		return 1
	}
	return strings.Compare(a.n.ID, b.n.ID)
}

// first is the first node after prev (nil or not indexed: from the start)
// that was eligible when recorded and whose recorded available resources
// fit ask. An ask with no positive type fits every node, drained and
// reserved ones included, as the index has always answered.
func (m *model) first(ask resource.Vector, prev *Node) *Node {
	_, seen := m.in[prev]
	seen = !seen
	any := ask.Fits(resource.Vector{})
	for _, r := range m.sorted {
		if !seen {
			seen = r.n == prev
			continue
		}
		if (r.eligible || any) && ask.Fits(r.avail) {
			return r.n
		}
	}
	return nil
}

// anyEligible reports whether some node was eligible when recorded.
func (m *model) anyEligible() bool {
	return slices.ContainsFunc(m.sorted, func(r *recorded) bool { return r.eligible })
}

// maxAvailable is, type by type, the most any node eligible when recorded
// had available.
func (m *model) maxAvailable() resource.Vector {
	var v resource.Vector
	first := true
	for _, r := range m.sorted {
		if !r.eligible {
			continue
		}
		for i := range v {
			if first || r.avail[i] > v[i] {
				v[i] = r.avail[i]
			}
		}
		first = false
	}
	return v
}

// bounds reports whether got is, type by type, want or between a negative
// want and 0.
func bounds(got, want resource.Vector) bool {
	for i := range got {
		if got[i] < want[i] || got[i] > max(want[i], 0) {
			return false
		}
	}
	return true
}

// modelID makes IDs of many lengths around the 16 bytes the index packs,
// with long shared prefixes, so ties of score exercise every ID compare.
func modelID(rng *rand.Rand, i int) string {
	switch rng.IntN(4) {
	case 0:
		return fmt.Sprintf("n%d", i)
	case 1:
		return fmt.Sprintf("rack-%02d/node-%d", i%7, i)
	case 2:
		return fmt.Sprintf("%015d", i)
	default:
		return strings.Repeat("x", rng.IntN(20)) + fmt.Sprint(i)
	}
}

// modelVec draws resources over types 0..types-1 in coarse steps, so many
// nodes share a score and ties are common.
func modelVec(rng *rand.Rand, types int, step int64) resource.Vector {
	var v resource.Vector
	for i := range types {
		if rng.IntN(3) > 0 {
			v[i] = step * int64(rng.IntN(5))
		}
	}
	return v
}

// TestIndexAgainstModel runs long random sequences of Add, Remove, Update
// (after allocating, freeing, draining, reserving, resizing, gaining a new
// resource type) and Reconfigure against the naive model, checking First,
// Next, Ascend and Len after every step. Some changes to a node wait a few
// steps before their Update: the index answers from what it last recorded.
func TestIndexAgainstModel(t *testing.T) {
	weightSets := []resource.Weights{resource.DefaultWeights(), {0: 1}, {1: 2, 3: 1}, {0: 1, 1: 1, 2: 3, 4: 0.5}}
	for seed := uint64(1); seed <= 24; seed++ {
		rng := rand.New(rand.NewPCG(seed, 17))
		maxNodes := []int{8, 60, 300, 1500}[seed%4]
		steps := 3000
		if maxNodes > 300 {
			steps = 1000
		}
		p := Policy(seed % 2)
		x := NewIndex(p, weightSets[0])
		m := &model{policy: p, weights: weightSets[0], in: map[*Node]*recorded{}}
		types := 2
		var all []*Node   // indexed or removed
		var stale []*Node // changed, not yet updated, in the order they changed
		newNode := func() *Node {
			n := New(modelID(rng, len(all)), modelVec(rng, types, 1000), nil)
			all = append(all, n)
			return n
		}
		for range 1 + rng.IntN(maxNodes) {
			n := newNode()
			x.Add(n)
			m.record(n)
		}
		dump := func() {
			for _, r := range m.sorted {
				t.Logf("%s key %v avail %v elig %v stale %v", r.n.ID, r.key, r.avail, r.eligible, slices.Contains(stale, r.n))
			}
			x.Ascend(func(k *Node) bool { t.Logf("index: %s", k.ID); return true })
		}
		for step := range steps {
			n := all[rng.IntN(len(all))]
			_, indexed := m.in[n]
			switch op := rng.IntN(20); {
			case op == 0 && len(all) < maxNodes:
				n = newNode()
				x.Add(n)
				m.record(n)
			case op == 1:
				x.Add(n) // re-adding an indexed node is a no-op
				if !indexed {
					m.record(n)
					stale = slices.DeleteFunc(stale, func(k *Node) bool { return k == n })
				}
			case op == 2 && len(m.in) > 1:
				x.Remove(n)
				m.drop(n)
				stale = slices.DeleteFunc(stale, func(k *Node) bool { return k == n })
			case op == 3 && rng.IntN(20) == 0:
				ps := []Policy{Fair, BinPacking}[rng.IntN(2)]
				w := weightSets[rng.IntN(len(weightSets))]
				x.Reconfigure(ps, w)
				if ps != m.policy || w != m.weights {
					m.policy, m.weights = ps, w
					for _, r := range slices.Clone(m.sorted) {
						m.record(r.n)
					}
					stale = stale[:0]
				}
			case op == 4 && types < 7 && rng.IntN(10) == 0:
				types++ // a new resource type appears on this node
				n.Capacity[types-1] = 1 + int64(rng.IntN(4))
				if !slices.Contains(stale, n) {
					stale = append(stale, n)
				}
			default:
				switch rng.IntN(8) {
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
				case 3:
					n.Occupied = modelVec(rng, types, 500)
				case 4:
					n.Capacity = modelVec(rng, types, 1000)
				default:
					ask := modelVec(rng, types, 250)
					if ask.Fits(n.Available()) {
						n.Allocated = n.Allocated.Add(ask)
					}
				}
				if !slices.Contains(stale, n) {
					stale = append(stale, n)
				}
			}
			// most changes are indexed at once, some a few steps later
			stale = slices.DeleteFunc(stale, func(k *Node) bool {
				if rng.IntN(4) > 0 {
					x.Update(k)
					if _, ok := m.in[k]; ok {
						m.record(k)
					}
					return true
				}
				return false
			})
			for range 3 {
				ask := modelVec(rng, types+1, 500)
				if rng.IntN(10) == 0 {
					ask = resource.Vector{}
				}
				if got, want := x.First(&ask), m.first(ask, nil); got != want {
					dump()
					t.Fatalf("seed %d step %d: First(%v) = %s, want %s", seed, step, ask, id(got), id(want))
				}
				prev := all[rng.IntN(len(all))]
				if got, want := x.Next(&ask, prev), m.first(ask, prev); got != want {
					dump()
					t.Fatalf("seed %d step %d: Next(%v, %s) = %s, want %s", seed, step, ask, prev.ID, id(got), id(want))
				}
			}
			// the most available is exact, or 0 in a column that was added
			// after it went negative everywhere: a bound either way
			if got, ok := x.MaxAvailable(); ok != m.anyEligible() || (ok && !bounds(got, m.maxAvailable())) {
				t.Fatalf("seed %d step %d: MaxAvailable %v %v, want %v %v", seed, step, got, ok, m.maxAvailable(), m.anyEligible())
			}
			if step%50 == 0 || maxNodes <= 60 {
				var got []*Node
				x.Ascend(func(n *Node) bool { got = append(got, n); return true })
				var want []*Node
				for _, r := range m.sorted {
					want = append(want, r.n)
				}
				if !slices.Equal(got, want) || x.Len() != len(want) {
					t.Fatalf("seed %d step %d: order differs from the model (%d nodes, want %d)", seed, step, x.Len(), len(want))
				}
				if err := x.root.check(x.width); err != nil {
					t.Fatalf("seed %d step %d: %v", seed, step, err)
				}
			}
		}
	}
}

// check verifies the page structure under p: parent links and slots,
// fill, entries in order and pointing back to their leaf, separators
// between their children's entries, and every maximum equal to the one
// computed from scratch.
func (p *page) check(width int) error {
	_, _, err := p.span(width)
	return err
}

// span checks p and returns its least and greatest entries.
func (p *page) span(width int) (lo, hi *ekey, err error) {
	if p.lo < 0 || p.hi > fan || p.lo > p.hi || (p.lo == p.hi && (p.up != nil || !p.leaf || p.lo != 0)) {
		return nil, nil, fmt.Errorf("page with window %d..%d", p.lo, p.hi)
	}
	if p.lo == p.hi {
		return nil, nil, nil
	}
	for i := range fan {
		if (i < p.lo || i >= p.hi) && (p.k[i] != ekey{} || p.kid[i] != nil) {
			return nil, nil, fmt.Errorf("slot %d outside the window %d..%d not cleared", i, p.lo, p.hi)
		}
	}
	for i := p.lo; i < p.hi; i++ {
		if p.leaf {
			if i > p.lo && !p.k[i-1].less(&p.k[i]) {
				return nil, nil, fmt.Errorf("entries %d and %d out of order", i-1, i)
			}
			if p.k[i].node.pg != p {
				return nil, nil, fmt.Errorf("node %s does not point to its page", p.k[i].node.ID)
			}
			continue
		}
		c := p.kid[i]
		if c.up != p || c.at != i {
			return nil, nil, fmt.Errorf("child %d: up/at wrong", i)
		}
		clo, chi, err := c.span(width)
		if err != nil {
			return nil, nil, err
		}
		if i > p.lo && (!hi.less(&p.k[i]) || clo.less(&p.k[i])) {
			return nil, nil, fmt.Errorf("separator %d not between its children", i)
		}
		if i == p.lo {
			lo = clo
		}
		hi = chi
		for t := range resource.MaxTypes {
			m := slices.Max(c.max[t][c.lo:c.hi])
			if t >= width {
				m = 0
			}
			if p.max[t][i] != m {
				return nil, nil, fmt.Errorf("slot %d type %d: maximum %d, children's %d", i, t, p.max[t][i], m)
			}
		}
	}
	if p.leaf {
		return &p.k[p.lo], &p.k[p.hi-1], nil
	}
	return lo, hi, nil
}

// TestIndexGrowAndShrink grows the index to enough nodes for three levels
// of inner pages and shrinks it back in random order, moving nodes on the
// way, so inner pages split and merge both ways; the structure, the order
// and First are checked against a model built afresh as it goes (every
// change is indexed at once here).
func TestIndexGrowAndShrink(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	x := NewIndex(Fair, resource.DefaultWeights())
	var live []*Node
	verify := func(stage string) {
		t.Helper()
		if err := x.root.check(x.width); err != nil {
			t.Fatalf("%s, %d nodes: %v", stage, len(live), err)
		}
		m := &model{policy: Fair, weights: resource.DefaultWeights(), in: map[*Node]*recorded{}}
		for _, n := range live {
			r := m.snap(n)
			m.in[n], m.sorted = r, append(m.sorted, r)
		}
		slices.SortFunc(m.sorted, compareRecorded)
		i := 0
		x.Ascend(func(n *Node) bool {
			if i >= len(m.sorted) || m.sorted[i].n != n {
				t.Fatalf("%s, %d nodes: order differs from the model at %d", stage, len(live), i)
			}
			i++
			return true
		})
		for range 20 {
			ask := modelVec(rng, 2, 1000)
			if got, want := x.First(&ask), m.first(ask, nil); got != want {
				t.Fatalf("%s: First(%v) = %s, want %s", stage, ask, id(got), id(want))
			}
		}
	}
	move := func() {
		n := live[rng.IntN(len(live))]
		n.Allocated = modelVec(rng, 2, 700)
		x.Update(n)
	}
	for i := range 24000 {
		n := New(modelID(rng, i), vec(4000, 4000), nil)
		n.Allocated = modelVec(rng, 2, 700)
		live = append(live, n)
		x.Add(n)
		move()
		if i%3000 == 0 {
			verify("growing")
		}
	}
	verify("grown")
	for len(live) > 1 {
		j := rng.IntN(len(live))
		x.Remove(live[j])
		live[j] = live[len(live)-1]
		live = live[:len(live)-1]
		move()
		if len(live)%1000 == 0 || len(live) < 40 {
			verify("shrinking")
		}
	}
}

// TestIndexAllocationCycle is the partition's own pattern: the first node
// an ask fits on takes it and is updated, over and over, with mostly
// uniform asks. Under Fair every node moves from the front of the order
// to the back (pages drain at the front and start at the back); under
// BinPacking it stays in place until full.
func TestIndexAllocationCycle(t *testing.T) {
	for _, p := range []Policy{Fair, BinPacking} {
		rng := rand.New(rand.NewPCG(11, uint64(p)))
		x := NewIndex(p, resource.DefaultWeights())
		var live []*Node
		for i := range 2000 {
			n := New(fmt.Sprintf("node-%04d", i), vec(64000, 64000), nil)
			live = append(live, n)
			x.Add(n)
		}
		for step := range 40000 {
			ask := vec(1000, 1000)
			if rng.IntN(50) == 0 {
				ask = modelVec(rng, 2, 1000)
			}
			n := x.First(&ask)
			if n == nil {
				for _, m := range live {
					m.Allocated = resource.Vector{}
					x.Update(m)
				}
				continue
			}
			n.Allocated = n.Allocated.Add(ask)
			x.UpdateOn(n, ask.Support()) // as a decision does
			if step%2000 != 0 {
				continue
			}
			if err := x.root.check(x.width); err != nil {
				t.Fatalf("policy %d step %d: %v", p, step, err)
			}
			m := &model{policy: p, weights: resource.DefaultWeights(), in: map[*Node]*recorded{}}
			for _, n := range live {
				r := m.snap(n)
				m.in[n], m.sorted = r, append(m.sorted, r)
			}
			slices.SortFunc(m.sorted, compareRecorded)
			var got []*Node
			x.Ascend(func(n *Node) bool { got = append(got, n); return true })
			for i, r := range m.sorted {
				if got[i] != r.n {
					t.Fatalf("policy %d step %d: order differs from the model at %d", p, step, i)
				}
			}
			for range 10 {
				ask := modelVec(rng, 2, 2000)
				if got, want := x.First(&ask), m.first(ask, nil); got != want {
					t.Fatalf("policy %d step %d: First(%v) = %s, want %s", p, step, ask, id(got), id(want))
				}
			}
		}
	}
}
