package node

import (
	"math"
	"math/bits"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Policy is a node sort policy of the queues.yaml nodesortpolicy section.
type Policy int

const (
	// Fair prefers the least loaded node.
	Fair Policy = iota
	// BinPacking prefers the most loaded node.
	BinPacking
)

// Index keeps a partition's nodes ordered by the node sort policy (score,
// then node ID) in a B+-tree of pages (page.go) whose inner slots also
// carry the component-wise maximum of the available resources of the
// eligible nodes below them. The maximum prunes whole subtrees when looking
// for the first node an ask fits on, so a lookup costs O(log n) in the usual
// case instead of a scan; an update touches a few pages of contiguous
// arrays rather than a path of scattered entries.
//
// Index is not safe for concurrent use; the engine goroutine owns it.
type Index struct {
	root    *page
	n       int
	policy  Policy
	weights resource.Weights
	// width is the number of leading resource types any node has; the
	// vector loops stop there (types beyond it are zero on every node).
	width int
	// spare are pages that left the tree (merged into a sibling), reused
	// by splits: under the Fair policy an allocated node moves to the back
	// of the order, so pages empty at the front as fast as they fill at
	// the back, and a 5 KiB page per 16 allocations kept the collector
	// busy.
	spare []*page
	// sfx are the suffix maxima of a leaf and an inner page (suffix.go).
	sfx [2]suffix
}

// ekey is an entry's place in the order: the sort key, then the node ID,
// whose first 16 bytes are packed big-endian and zero-padded in id0, id1 so
// that most ties compare two integers.
type ekey struct {
	key      float64
	id0, id1 uint64
	node     *Node
}

// less orders entries by key, then node ID. The ID's packed prefix
// decides first: where the prefixes differ they order as the IDs do (a
// shorter ID padded with zeros sorts before the longer it prefixes).
func (a *ekey) less(b *ekey) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	if a.id0 != b.id0 {
		return a.id0 < b.id0
	}
	if a.id1 != b.id1 {
		return a.id1 < b.id1
	}
	return a.node.ID < b.node.ID
}

// ineligible is the available vector recorded for nodes that may not take
// normal allocations: no positive ask fits it.
var ineligible = func() resource.Vector {
	var v resource.Vector
	for i := range v {
		v[i] = math.MinInt64
	}
	return v
}()

// NewIndex returns an empty index ordering nodes by policy with the given
// resource weights.
func NewIndex(p Policy, w resource.Weights) *Index {
	return &Index{root: &page{leaf: true}, policy: p, weights: w}
}

// widen makes sure the vector loops cover every type node n has. The
// columns of the new types are zero in every page, which no positive ask
// fits: right for the nodes recorded so far, which had none of them.
func (x *Index) widen(n *Node) {
	// nearly always none has: a pass without branches says so
	var or int64
	c, o, a := n.Capacity[x.width:], n.Occupied[x.width:], n.Allocated[x.width:]
	for i := range c {
		or |= c[i] | o[i] | a[i]
	}
	if or == 0 {
		return
	}
	for i := resource.MaxTypes - 1; i >= x.width; i-- {
		if n.Capacity[i] != 0 || n.Occupied[i] != 0 || n.Allocated[i] != 0 {
			x.width = i + 1
			return
		}
	}
}

// Len returns the number of indexed nodes.
func (x *Index) Len() int { return x.n }

// Policy returns the index's sort policy.
func (x *Index) Policy() Policy { return x.policy }

// Score is the node's usage score under the index's weights: 0 for an
// empty node, 1 for a full one.
func (x *Index) Score(n *Node) float64 {
	return resource.WeightedShare(n.Used(), n.Capacity, &x.weights)
}

func (x *Index) sortKey(n *Node) float64 {
	s := x.share(n)
	if math.IsNaN(s) {
		s = 0
	}
	if x.policy == BinPacking {
		return 1 - s
	}
	return s
}

// share is Score over the first width types, where all of n's types are
// once widen has seen n: the same operations in the same order, so the
// same float.
func (x *Index) share(n *Node) float64 {
	var sum, weight float64
	for i := range x.width {
		if x.weights[i] == 0 || n.Capacity[i] <= 0 {
			continue
		}
		sum += x.weights[i] * float64(n.Allocated[i]+n.Occupied[i]) / float64(n.Capacity[i])
		weight += x.weights[i]
	}
	if weight == 0 {
		return 0
	}
	return sum / weight
}

// column returns what the index records as n's available resources, over
// the first width types: ineligible for a node that takes no normal
// allocation.
func (x *Index) column(n *Node) resource.Vector {
	if !n.Eligible() {
		return ineligible
	}
	var v resource.Vector
	for t := range x.width {
		v[t] = n.Capacity[t] - n.Allocated[t] - n.Occupied[t]
	}
	return v
}

// Add indexes n. Adding a node that is already indexed is a no-op.
func (x *Index) Add(n *Node) {
	if n.pg != nil {
		return
	}
	x.widen(n)
	e := ekey{key: x.sortKey(n), node: n}
	id := app.PackID(n.ID)
	e.id0, e.id1 = id[0], id[1]
	v := x.column(n)
	x.insert(&e, &v)
	x.n++
}

// Remove drops n from the index. Removing an unindexed node is a no-op.
func (x *Index) Remove(n *Node) {
	p := n.pg
	if p == nil {
		return
	}
	x.removeAt(p, p.slot(n))
	n.pg = nil
	x.n--
}

// Update re-positions n after its resources, schedulability or reservation
// changed. A node whose new place is where it is (between the entries
// before and after it) is changed in its slot; otherwise it moves.
func (x *Index) Update(n *Node) {
	x.widen(n)
	x.reposition(n)
}

// UpdateOn is Update for a node whose allocated resources changed on the
// types of m only (an allocation placed on it): its other types did not
// change, and were covered when it was last added or updated, so they are
// not read again (widen reads up to three vectors' tails, several of the
// node's cache lines, on every decision).
func (x *Index) UpdateOn(n *Node, m resource.Mask) {
	if m>>x.width != 0 {
		x.widen(n)
	}
	x.reposition(n)
}

// reposition is Update once the vector loops cover n's types.
func (x *Index) reposition(n *Node) {
	p := n.pg
	if p == nil {
		return
	}
	i := p.slot(n)
	e := p.k[i]
	e.key = x.sortKey(n)
	v := x.column(n)
	if !stays(p, i, &e) {
		x.removeAt(p, i)
		x.insert(&e, &v)
		return
	}
	var old resource.Vector
	p.k[i].key = e.key
	for t := range x.width {
		old[t], p.max[t][i] = p.max[t][i], v[t]
	}
	p.touch(i)
	x.adjust(p, &old, &v)
}

// stays reports whether entry e may take slot i of leaf p: it sorts after
// the entry before the slot and before the entry after it, and within the
// separators around p when it would be p's first or last.
func stays(p *page, i int, e *ekey) bool {
	if i > p.lo {
		if !p.k[i-1].less(e) {
			return false
		}
	} else if f := p.floor(); f != nil && e.less(f) {
		return false
	}
	if i < p.hi-1 {
		return e.less(&p.k[i+1])
	}
	c := p.ceiling()
	return c == nil || e.less(c)
}

// Reconfigure changes the policy and weights and re-orders every node.
func (x *Index) Reconfigure(p Policy, w resource.Weights) {
	if p == x.policy && w == x.weights {
		return
	}
	x.policy, x.weights = p, w
	var all []*Node
	x.Ascend(func(n *Node) bool { all = append(all, n); return true })
	x.root, x.n, x.spare, x.sfx = &page{leaf: true}, 0, nil, [2]suffix{}
	for _, n := range all {
		n.pg = nil
		x.Add(n)
	}
}

// First returns the first node in policy order that is eligible and whose
// available resources fit ask, or nil.
func (x *Index) First(ask *resource.Vector) *Node {
	var nd need
	if !x.needs(ask, &nd) {
		return nil
	}
	p, i := x.first(x.root, x.root.lo, &nd)
	if p == nil {
		return nil
	}
	return p.k[i].node
}

// Next returns the first eligible node after prev in policy order on which
// ask fits, or nil. It lets a caller that rejects a candidate (for example
// after an RM predicate check) continue the search.
func (x *Index) Next(ask *resource.Vector, prev *Node) *Node {
	if prev == nil || prev.pg == nil {
		return x.First(ask)
	}
	var nd need
	if !x.needs(ask, &nd) {
		return nil
	}
	p := prev.pg
	from := p.slot(prev) + 1
	for ; p != nil; p = p.up {
		if q, i := x.first(p, from, &nd); q != nil {
			return q.k[i].node
		}
		from = p.at + 1
	}
	return nil
}

// need is the types an ask uses (ask[t] > 0) and how much of each: what
// a slot's column must reach for the ask to fit.
type need struct {
	n   int
	typ [resource.MaxTypes]int
	min [resource.MaxTypes]int64
}

// needs fills nd, which is empty, with what ask needs, and returns false
// when it needs a type no node has.
func (x *Index) needs(ask *resource.Vector, nd *need) bool {
	// the ask's types in order: most asks have two, which the mask finds
	// without a test per type
	for m := ask.Support(); m != 0; m &= m - 1 {
		t := bits.TrailingZeros32(uint32(m))
		a := ask[t]
		if a <= 0 {
			continue
		}
		if t >= x.width {
			return false
		}
		nd.typ[nd.n], nd.min[nd.n] = t, a
		nd.n++
	}
	return true
}

// first finds the leftmost entry under slots from.. of p whose columns
// meet nd: the page and slot of the entry, or nil. It goes down into the
// first slot that meets nd and, from a page none of whose slots does (the
// maxima of a slot may come from different nodes), back up to the slot
// after it, in a loop rather than by recursion: a lookup usually goes
// straight down.
func (x *Index) first(p *page, from int, nd *need) (*page, int) {
	top, i := p, from
	for {
		for i < p.hi && !p.meets(i, nd) {
			i++
		}
		switch {
		case i < p.hi && p.leaf:
			return p, i
		case i < p.hi:
			p = p.kid[i]
			i = p.lo
		case p == top:
			return nil, 0
		default:
			i = p.at + 1
			p = p.up
		}
	}
}

// meets reports whether slot i's column of p has what nd needs.
func (p *page) meets(i int, nd *need) bool {
	for j := range nd.n {
		if p.max[nd.typ[j]][i] < nd.min[j] {
			return false
		}
	}
	return true
}

// Ascend calls fn for every node in policy order until fn returns false.
func (x *Index) Ascend(fn func(*Node) bool) {
	x.root.ascend(fn)
}

// MaxAvailable returns, type by type, at least the most available on any
// node that takes normal allocations (Eligible), as last added or updated,
// and false when none does. It reads the root page's maxima only: they are
// exact, except that a type that appeared after a page was summarized
// counts 0 there until a node below it changes.
func (x *Index) MaxAvailable() (resource.Vector, bool) {
	var v resource.Vector
	r := x.root
	if r.size() == 0 {
		return v, false
	}
	for t := range x.width {
		v[t] = rowMax(r.max[t][r.lo:r.hi])
	}
	// an ineligible node records math.MinInt64 in every column, and every
	// node has at least one type below width, or width is zero
	if x.width > 0 && v[0] == ineligible[0] {
		return v, false
	}
	return v, true
}
