package node

import (
	"encoding/binary"
	"math"

	"github.com/paddock-sched/paddock/internal/resource"
	"github.com/paddock-sched/paddock/internal/strhash"
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
// then node ID) in a treap whose entries also carry the component-wise
// maximum of the available resources of the eligible nodes below them. The
// maximum prunes whole subtrees when looking for the first node an ask fits
// on, so a lookup costs O(log n) in the usual case instead of a scan.
//
// Index is not safe for concurrent use; the engine goroutine owns it.
type Index struct {
	root    *tnode
	n       int
	policy  Policy
	weights resource.Weights
	// width is the number of leading resource types any node has; the
	// vector loops stop there (types beyond it are zero on every node).
	width int
}

// The fields a descent reads (key, the ID's prefix, children, priority
// and the first two types of agg) come first, so they share the entry's
// first cache line (entries are 320-byte objects, 64-byte aligned).
type tnode struct {
	key float64
	// id0, id1 are the node ID's first 16 bytes, big-endian, zero-padded:
	// ties of key compare them before the ID itself
	id0, id1    uint64
	left, right *tnode
	prio        uint64
	agg         resource.Vector // component-wise max of avail in the subtree
	avail       resource.Vector // node's own available, or ineligible
	node        *Node
}

// idPrefix packs id's first 16 bytes for less.
func idPrefix(id string) (uint64, uint64) {
	var b [16]byte
	copy(b[:], id)
	return binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
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
	return &Index{policy: p, weights: w}
}

// widen makes sure the vector loops cover every type node n has.
func (x *Index) widen(n *Node) {
	for i := resource.MaxTypes - 1; i >= x.width; i-- {
		if n.Capacity[i] != 0 || n.Occupied[i] != 0 || n.Allocated[i] != 0 {
			x.width = i + 1
			x.repull(x.root) // subtree maxima must now cover the new types
			return
		}
	}
}

func (x *Index) repull(t *tnode) {
	if t == nil {
		return
	}
	x.repull(t.left)
	x.repull(t.right)
	t.pull(x.width)
}

// beyond reports whether ask needs a type no node has.
func (x *Index) beyond(ask *resource.Vector) bool {
	for i := x.width; i < resource.MaxTypes; i++ {
		if ask[i] > 0 {
			return true
		}
	}
	return false
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
	s := x.Score(n)
	if math.IsNaN(s) {
		s = 0
	}
	if x.policy == BinPacking {
		return 1 - s
	}
	return s
}

// Add indexes n. Adding a node that is already indexed is a no-op.
func (x *Index) Add(n *Node) {
	if n.t != nil {
		return
	}
	x.widen(n)
	t := &tnode{node: n, prio: prio(n.ID)}
	t.id0, t.id1 = idPrefix(n.ID)
	x.fill(t)
	x.root = x.insert(x.root, t)
	n.t = t
	x.n++
}

// Remove drops n from the index. Removing an unindexed node is a no-op.
func (x *Index) Remove(n *Node) {
	if n.t == nil {
		return
	}
	x.root = x.remove(x.root, n.t)
	n.t = nil
	x.n--
}

// Update re-positions n after its resources, schedulability or reservation
// changed.
func (x *Index) Update(n *Node) {
	if n.t == nil {
		return
	}
	x.widen(n)
	t := n.t
	x.root = x.remove(x.root, t)
	x.fill(t)
	t.left, t.right = nil, nil
	x.root = x.insert(x.root, t)
}

// Reconfigure changes the policy and weights and re-orders every node.
func (x *Index) Reconfigure(p Policy, w resource.Weights) {
	if p == x.policy && w == x.weights {
		return
	}
	x.policy, x.weights = p, w
	var all []*Node
	x.Ascend(func(n *Node) bool { all = append(all, n); return true })
	x.root, x.n = nil, 0
	for _, n := range all {
		n.t = nil
		x.Add(n)
	}
}

func (x *Index) fill(t *tnode) {
	t.key = x.sortKey(t.node)
	if t.node.Eligible() {
		t.avail = t.node.Available()
	} else {
		t.avail = ineligible
	}
	t.agg = t.avail
}

// First returns the first node in policy order that is eligible and whose
// available resources fit ask, or nil.
func (x *Index) First(ask resource.Vector) *Node {
	if x.beyond(&ask) {
		return nil
	}
	t := x.first(x.root, &ask, nil)
	if t == nil {
		return nil
	}
	return t.node
}

// Next returns the first eligible node after prev in policy order on which
// ask fits, or nil. It lets a caller that rejects a candidate (for example
// after an RM predicate check) continue the search.
func (x *Index) Next(ask resource.Vector, prev *Node) *Node {
	if prev == nil || prev.t == nil {
		return x.First(ask)
	}
	if x.beyond(&ask) {
		return nil
	}
	t := x.first(x.root, &ask, prev.t)
	if t == nil {
		return nil
	}
	return t.node
}

// Ascend calls fn for every node in policy order until fn returns false.
func (x *Index) Ascend(fn func(*Node) bool) {
	ascend(x.root, fn)
}

func ascend(t *tnode, fn func(*Node) bool) bool {
	if t == nil {
		return true
	}
	return ascend(t.left, fn) && fn(t.node) && ascend(t.right, fn)
}

// less orders entries by key, then node ID. The ID's packed prefix
// decides first: where the prefixes differ they order as the IDs do (a
// shorter ID padded with zeros sorts before the longer it prefixes).
func less(a, b *tnode) bool {
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

// first finds the leftmost entry strictly after lo (nil: no bound) that is
// eligible and fits ask.
func (x *Index) first(t *tnode, ask *resource.Vector, lo *tnode) *tnode {
	w := x.width
	for t != nil {
		if !fits(ask, &t.agg, w) {
			return nil
		}
		if lo != nil && !less(lo, t) {
			// t and its left subtree are not after lo.
			t = t.right
			continue
		}
		if r := x.first(t.left, ask, lo); r != nil {
			return r
		}
		if fits(ask, &t.avail, w) {
			return t
		}
		// everything left of t is done; the right subtree is after lo.
		t, lo = t.right, nil
	}
	return nil
}

// fits is Vector.Fits over the first w types.
func fits(ask, avail *resource.Vector, w int) bool {
	for i := range w {
		if ask[i] > 0 && ask[i] > avail[i] {
			return false
		}
	}
	return true
}

// pull recomputes t's subtree maximum over the first w types (the others
// are zero, or MinInt64 for ineligible nodes, and never fit a request).
// Types from w on are not copied either: no lookup reads them (beyond
// answers asks that need them), and widen repulls every entry.
func (t *tnode) pull(w int) {
	a, v := t.agg[:w], t.avail[:w]
	copy(a, v)
	if l := t.left; l != nil {
		la := l.agg[:w]
		for i := range a {
			a[i] = max(a[i], la[i])
		}
	}
	if r := t.right; r != nil {
		ra := r.agg[:w]
		for i := range a {
			a[i] = max(a[i], ra[i])
		}
	}
}

func (x *Index) insert(root, t *tnode) *tnode {
	if root == nil {
		t.pull(x.width)
		return t
	}
	if less(t, root) {
		root.left = x.insert(root.left, t)
		if root.left.prio > root.prio {
			root = x.rotateRight(root)
		}
	} else {
		root.right = x.insert(root.right, t)
		if root.right.prio > root.prio {
			root = x.rotateLeft(root)
		}
	}
	root.pull(x.width)
	return root
}

func (x *Index) remove(root, t *tnode) *tnode {
	if root == nil {
		return nil
	}
	switch {
	case root == t:
		return x.merge(root.left, root.right)
	case less(t, root):
		root.left = x.remove(root.left, t)
	default:
		root.right = x.remove(root.right, t)
	}
	root.pull(x.width)
	return root
}

func (x *Index) merge(a, b *tnode) *tnode {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	if a.prio > b.prio {
		a.right = x.merge(a.right, b)
		a.pull(x.width)
		return a
	}
	b.left = x.merge(a, b.left)
	b.pull(x.width)
	return b
}

func (x *Index) rotateRight(t *tnode) *tnode {
	l := t.left
	t.left = l.right
	t.pull(x.width)
	l.right = t
	l.pull(x.width)
	return l
}

func (x *Index) rotateLeft(t *tnode) *tnode {
	r := t.right
	t.right = r.left
	t.pull(x.width)
	r.left = t
	r.pull(x.width)
	return r
}

// prio derives the treap priority from the node ID, so the tree shape, like
// everything else in the scheduler, is deterministic.
func prio(id string) uint64 { return strhash.Of(id) }
