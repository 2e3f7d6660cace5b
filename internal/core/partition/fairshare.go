package partition

import (
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Fair-share preemption (Paddock's own, opt in per parent queue with
// paddock.fairshare.preemption: enabled; docs/preemption.md). Below such a
// parent every child that holds or asks for resources is active; an active
// child's fair share is its paddock.fairshare.weight over the sum of the
// active children's weights, as a dominant-resource share of the parent's
// capacity. A child whose usage with the ask stays at or below its fair
// share may take victims from its siblings, as long as each sibling keeps
// at least its own fair share (and every queue its guarantee). So after a
// reclaim neither queue has crossed its share towards the other: the
// preemptor is at or below its share and the victims' queue at or above
// its own, and neither may then preempt the other back.

// fairLevel is a fair-share parent as one decision sees it.
type fairLevel struct {
	parent *queue.Queue
	// ask is the parent's child on the ask's path.
	ask *queue.Queue
	// capacity is what the parent's children share (fairCapacity).
	capacity resource.Vector
	// weights is the sum of the active children's weights.
	weights float64
	// askUsed is the ask's child's dominant share with the ask and its
	// other reserved asks; askFair its fair share.
	askUsed, askFair float64
}

// active reports whether q takes part in its parent's fair shares: it holds
// or asks for resources.
func active(q *queue.Queue) bool { return !q.Allocated.IsZero() || !q.Pending.IsZero() }

// fairWeights is the sum of the weights of parent's active children.
func fairWeights(parent *queue.Queue) float64 {
	var w float64
	parent.EachChild(func(c *queue.Queue) {
		if active(c) {
			w += c.Props.FairShareWeight
		}
	})
	return w
}

// fraction is child c's fair share of the level (0 when c is inactive).
func (f *fairLevel) fraction(c *queue.Queue) float64 {
	if !active(c) || f.weights <= 0 {
		return 0
	}
	return c.Props.FairShareWeight / f.weights
}

// used is c's dominant share of the level's capacity once its preempted
// allocations and taken are gone.
func (f *fairLevel) used(c *queue.Queue, taken resource.Vector) float64 {
	left := c.Allocated.Sub(c.Preempting).Sub(taken)
	return resource.DominantShare(left, f.capacity)
}

// keeps reports whether victim v may go without its queue at this level
// dropping below its fair share, on top of what the plan already takes
// (taken, by queue).
func (f *fairLevel) keeps(v victim, taken map[*queue.Queue]resource.Vector) bool {
	c := v.leaf.chain[len(v.leaf.chain)-1]
	t := taken[c]
	t.Inc(v.x.Res)
	return f.used(c, t) >= f.fraction(c)
}

// fairCapacity is what the children of q share for fair-share preemption:
// for the root, the partition's resources; for a child of a fair-share
// parent, its fair share of the parent's capacity or what it holds,
// whichever is more, type by type; otherwise its parent's capacity. A
// configured max caps it.
func (p *Partition) fairCapacity(q *queue.Queue) resource.Vector {
	var c resource.Vector
	if q.Parent == nil {
		c = p.cluster
	} else {
		c = p.fairCapacity(q.Parent)
		if q.Parent.Props.FairSharePreemption {
			w := fairWeights(q.Parent)
			f := 0.0
			if active(q) && w > 0 {
				f = q.Props.FairShareWeight / w
			}
			for i := range c {
				c[i] = max(int64(float64(c[i])*f), q.Allocated[i])
			}
		}
	}
	for i := range c {
		if lim, ok := q.Max.Limit(resource.Index(i)); ok && lim < c[i] {
			c[i] = lim
		}
	}
	return c
}

// fairLevelFor returns the level of fair-share parent par for ask x whose
// path goes through child, and whether that child is entitled: with x and
// its queue's other reserved asks it stays at or below its fair share.
func (p *Partition) fairLevelFor(par, child *queue.Queue, x *app.Allocation) (*fairLevel, bool) {
	f := &fairLevel{parent: par, ask: child, capacity: p.fairCapacity(par), weights: fairWeights(par)}
	f.askFair = f.fraction(child)
	incoming := x.Res
	for _, r := range p.reserved {
		if r.ask != x && isAncestor(child, p.leafOf(r.app)) {
			incoming.Inc(r.ask.Res)
		}
	}
	f.askUsed = f.used(child, neg(incoming))
	return f, f.askFair > 0 && f.askUsed <= f.askFair
}

// anyFairParent reports whether some ancestor of leaf has fair-share
// preemption on: without one, fair-share preemption costs nothing.
func anyFairParent(leaf *queue.Queue) bool {
	for q := leaf.Parent; q != nil; q = q.Parent {
		if q.Props.FairSharePreemption {
			return true
		}
	}
	return false
}

// planFairShare decides victims for ask x of leaf by the fair-share rule,
// or reports false. It tries the fair-share parents on the ask's path from
// the lowest up, within the ask's preemption fence, and takes victims only
// from the entitled child's siblings' subtrees. It changes nothing.
func (p *Partition) planFairShare(leaf *queue.Queue, x *app.Allocation, now time.Time) (preemptPlan, bool) {
	if !anyFairParent(leaf) {
		return preemptPlan{}, false
	}
	top := fenceRoot(leaf, x.Res)
	for c := leaf; c.Parent != nil && c != top; c = c.Parent {
		par := c.Parent
		if !par.Props.FairSharePreemption || !anyVictimLeaf(par, c) {
			continue
		}
		lvl, ok := p.fairLevelFor(par, c, x)
		if !ok {
			continue
		}
		if plan, ok := p.planVictims(leaf, x, now, victimScope{top: par, exclude: c, fair: lvl}); ok {
			return plan, true
		}
	}
	return preemptPlan{}, false
}

// fairEntitled reports whether ask x of leaf may preempt by the fair-share
// rule at some level, victims aside.
func (p *Partition) fairEntitled(leaf *queue.Queue, x *app.Allocation) bool {
	if !anyFairParent(leaf) {
		return false
	}
	top := fenceRoot(leaf, x.Res)
	for c := leaf; c.Parent != nil && c != top; c = c.Parent {
		if c.Parent.Props.FairSharePreemption {
			if _, ok := p.fairLevelFor(c.Parent, c, x); ok {
				return true
			}
		}
	}
	return false
}

// scopeNodes lists the nodes that hold allocations of the leaves in the
// scope of leaves, when the scope is a subtree below root: the victim
// search then skips every other node without looking at its allocations,
// and finds the same victims (a node without such allocations gives no
// candidates). It returns nil, meaning every node, for a scope at root or
// one holding more than a twentieth of the partition, where listing would
// touch about as many allocations as the search itself.
func (p *Partition) scopeNodes(leaves *leafCache) map[*node.Node]bool {
	sc := leaves.scope
	if sc.top.Parent == nil {
		return nil
	}
	held := sc.top.Allocated
	if sc.exclude != nil && isAncestor(sc.top, sc.exclude) {
		held = held.Sub(sc.exclude.Allocated)
	}
	if resource.DominantShare(held, p.cluster) > 0.05 {
		return nil
	}
	only := map[*node.Node]bool{}
	for q := range leaves.all() {
		q.EachApp(func(a *app.App) {
			a.Each(func(x *app.Allocation) bool {
				if x.NodeID != "" {
					if n := p.nodes[x.NodeID]; n != nil {
						only[n] = true
					}
				}
				return true
			})
		})
	}
	return only
}
