package queue

import (
	"math/bits"

	"github.com/paddock-sched/paddock/internal/resource"
)

// MaxHeld bounds the allocations of a subtree for the victim search: it
// widens as allocations arrive (Placed, AddApp, Holds) and is cleared,
// exactly, when the queue holds nothing again; in between it may stay
// above what the queue still holds.

// Holds widens MaxHeld on leaf's path to cover an allocation of res. The
// partition calls it for allocations it accounts with Apply (recovered,
// resized, replacing a placeholder); Placed and AddApp widen on their own.
func (leaf *Queue) Holds(res *resource.Vector) { leaf.holds(res, res.Support()) }

func (leaf *Queue) holds(res *resource.Vector, m resource.Mask) {
	for q := leaf; q != nil; q = q.Parent {
		wider := false
		for b := m; b != 0; b &= b - 1 {
			i := bits.TrailingZeros32(uint32(b))
			if res[i] > q.MaxHeld[i] {
				q.MaxHeld[i], wider = res[i], true
			}
		}
		if !wider {
			return // the ancestors cover what q covers
		}
	}
}

// clearHeld clears MaxHeld on leaf's path where nothing is held.
func (leaf *Queue) clearHeld() {
	for q := leaf; q != nil && q.Allocated.IsZero(); q = q.Parent {
		q.MaxHeld = resource.Vector{}
	}
}

// ScopeMaxHeld is, type by type, at least the most any one allocation of
// the leaves below top and outside exclude's subtree holds.
func ScopeMaxHeld(top, exclude *Queue) resource.Vector {
	switch {
	case top == exclude:
		return resource.Vector{}
	case top.Leaf || !exclude.below(top):
		return top.MaxHeld
	}
	var v resource.Vector
	for _, c := range top.children {
		w := ScopeMaxHeld(c, exclude)
		for i := range v {
			v[i] = max(v[i], w[i])
		}
	}
	return v
}

// below reports whether q is anc or below it.
func (q *Queue) below(anc *Queue) bool {
	for ; q != nil; q = q.Parent {
		if q == anc {
			return true
		}
	}
	return false
}
