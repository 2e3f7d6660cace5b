package partition

import (
	"math"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/core/queue"
)

// The victim search compares the plans of up to candidateNodes workable
// nodes and keeps the one of least score (fewest victims, fewest protected
// ones, lowest priorities), the first in node order among equals. A plan
// whose score no node can go below ends the search early with the same
// choice: planFloor is that least possible score, from bounds the
// partition keeps in O(1) per allocation placed or gone. In a full
// cluster of like allocations the first workable node's plan meets it,
// and a decision looks at one node instead of a thousand.

// stopAtFloor is a variable only so that a test can compare the search
// with and without the early end; nothing else sets it.
var stopAtFloor = true

// planFloor returns a score no node's plan for ask x can beat, and false
// when it knows none (no allocation or no candidate node). Each victim
// frees at most what the largest allocation of the scope's queues holds
// (queue.ScopeMaxHeld, and the partition's bounds.MaxRes), so a node with
// the most available of any candidate still needs victims for the rest
// of the ask; a plan has no fewer than 0 protected victims; and each
// victim's priority, seen from any queue, is at least the priority floor
// of the lowest priority held.
func (p *Partition) planFloor(x *app.Allocation, scope victimScope) ([3]int64, bool) {
	b := p.bounds
	if b.Loose(len(p.nodes)) {
		b.Tighten(func(yield func(*node.Node) bool) {
			for _, n := range p.nodes {
				if !yield(n) {
					return
				}
			}
		})
	}
	if b.MinPriority == math.MaxInt32 {
		return [3]int64{}, false // nothing allocated
	}
	most, found := p.nodeIndex().MaxAvailable()
	// the index leaves out reserved nodes; those reserved for x's key
	// (its application's) are searched too
	widen := func(n *node.Node) {
		if n.HeldFor(x.AppID, x.Key) && n.Schedulable {
			avail := n.Available()
			for i := range most {
				most[i] = max(most[i], avail[i])
			}
			found = true
		}
	}
	// only x's own reservation and its application's gang holds can
	// hold a node for x: looked up, not every reservation walked (a
	// burst of preemptors holds a node each)
	if len(p.reserved) > 0 {
		if r, ok := p.reserved[reservationKey(x.AppID, x.Key)]; ok {
			widen(r.node)
		}
	}
	for _, n := range p.gangHolds[x.AppID] {
		widen(n)
	}
	if !found {
		return [3]int64{}, false
	}
	// the bound of the scope's queues, which leaves out the preemptor's
	// own (often larger) allocations, and the partition's
	largest := queue.ScopeMaxHeld(scope.top, scope.exclude)
	victims := int64(1)
	for i, a := range x.Res {
		need := a - max(most[i], 0)
		if a <= 0 || need <= 0 {
			continue
		}
		per := min(largest[i], b.MaxRes[i])
		if per <= 0 {
			return [3]int64{}, false // no allocation holds the type: no plan at all
		}
		victims = max(victims, (need+per-1)/per)
	}
	return [3]int64{victims, 0, victims * int64(p.tree.PriorityFloor(b.MinPriority))}, true
}
