package queue

import (
	"math"

	"github.com/paddock-sched/paddock/internal/config"
)

// none marks the absence of a path in priorityFloor.
const none = math.MaxInt64

// priorityFloor is what PriorityFloor needs of the tree, computed once
// after queues are added or configured: over every path from a leaf up to
// one of its ancestors, the lowest sum of the negative priority offsets of
// a path without a priority fence (shift), and the lowest a path through
// a fence can give (fenced); none where there is no such path.
type priorityFloor struct {
	ok            bool
	shift, fenced int64
}

// PriorityFloor is a lower bound of the priority an allocation of priority
// at least p has as seen from any ancestor of its leaf: priority.offset
// and priority.policy (AdjustPriority) applied on the way up from the leaf
// through that ancestor's child. Positive offsets count as 0, so that it
// is a bound with AdjustPriority's int32 clamping too. Without negative
// offsets and priority fences it is p.
func (t *Tree) PriorityFloor(p int32) int32 {
	if p == math.MinInt32 {
		return p
	}
	if !t.floor.ok {
		// the root's own offset never applies: it is above every pair
		t.floor = priorityFloor{ok: true, shift: none, fenced: none}
		for _, c := range t.Root.children {
			t.floorBelow(c)
		}
	}
	f := t.floor
	if f.shift == none && f.fenced == none {
		return p // no leaf below root
	}
	lo := f.fenced // none is above any int32
	if f.shift != none {
		lo = min(lo, int64(p)+f.shift)
	}
	return int32(max(math.MinInt32, lo))
}

// floorBelow returns the shift and fenced values of the paths from the
// leaves below q up through q, and lowers t.floor's to them.
func (t *Tree) floorBelow(q *Queue) (shift, fenced int64) {
	if q.Leaf {
		shift, fenced = 0, none
	} else {
		shift, fenced = none, none
		for _, c := range q.children {
			s, f := t.floorBelow(c)
			shift, fenced = min(shift, s), min(fenced, f)
		}
		if shift == none && fenced == none {
			return none, none // no leaf below
		}
	}
	off := int64(min(0, q.Props.PriorityOffset))
	if q.Props.PriorityPolicy == config.PolicyFence {
		// every path through q leaves it at the offset alone
		shift, fenced = none, int64(q.Props.PriorityOffset)
	} else {
		if shift != none {
			shift += off
		}
		if fenced != none {
			fenced += off
		}
	}
	t.floor.shift = min(t.floor.shift, shift)
	t.floor.fenced = min(t.floor.fenced, fenced)
	return shift, fenced
}
