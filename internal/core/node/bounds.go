package node

import (
	"math"
	"math/bits"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Bounds bound the allocations held by a set of nodes (a partition's):
// none uses more of a type than MaxRes, none has a priority below
// MinPriority. The nodes that share a Bounds (SetBounds) widen it as
// allocations arrive; it never narrows on its own when they leave, so it
// stays a bound, only a looser one. Tighten makes it exact again: the
// owner calls it when Loose says enough has left since. A preemption
// decision uses the bounds to know when no other node can offer fewer or
// lower-priority victims than the set it found.
type Bounds struct {
	// MaxRes is, type by type, at least the most any one allocation holds.
	MaxRes resource.Vector
	// MinPriority is at most the lowest priority of any allocation;
	// math.MaxInt32 when there has been none.
	MinPriority int32
	// live counts the allocations on the nodes; left those that left or
	// were resized since the bounds were last exact.
	live, left int
}

// NewBounds returns the bounds of nodes holding nothing.
func NewBounds() *Bounds { return &Bounds{MinPriority: math.MaxInt32} }

// widen makes the bounds cover x, of support m.
func (b *Bounds) widen(x *app.Allocation, m resource.Mask) {
	for ; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(uint32(m))
		b.MaxRes[i] = max(b.MaxRes[i], x.Res[i])
	}
	b.MinPriority = min(b.MinPriority, x.Priority)
}

// Resized makes the bounds cover allocation x after its resources changed
// in place.
func (b *Bounds) Resized(x *app.Allocation) {
	b.widen(x, x.Res.Support())
	b.left++
}

// Loose reports whether so much left (or changed) since the bounds were
// exact that Tighten is worth its cost: more than half of what the nodes
// hold, plus nodes allocations, so that tightening, which visits every
// node and allocation, costs O(1) per departure.
func (b *Bounds) Loose(nodes int) bool { return b.left > (b.live+nodes)/2 }

// Tighten makes the bounds exact over nodes, which must be every node
// sharing them.
func (b *Bounds) Tighten(nodes func(yield func(*Node) bool)) {
	*b = Bounds{MinPriority: math.MaxInt32}
	for n := range nodes {
		for _, x := range n.allocs {
			b.widen(x, x.Res.Support())
			b.live++
		}
	}
}

// SetBounds makes n widen b as allocations arrive on it. n must hold
// nothing yet, or b must be tightened after.
func (n *Node) SetBounds(b *Bounds) { n.bounds = b }
