package partition

import (
	"slices"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/latency"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Gang-aware preemption. A gang whose placeholders do not all fit may
// preempt for the whole gang or not at all: a trial gives every pending
// placeholder a node, with room already or with victims on it, counting
// the placeholders and victims chosen before it, and only when all of
// them have one are the victims released. The nodes of the plan are then
// held for the gang (not reserved for one placeholder, which would be
// filled as soon as its own victims are gone and leave the gang half
// placed), and the gang is placed whole once every victim is gone. The
// holds end when the gang is placed, times out, or leaves.

// tryGangPreempt is called when gang application a, in leaf, could not
// place its pending placeholders phs (their sum is sum). When the gang may
// preempt now and victims for all of it exist, it releases them, holds the
// plan's nodes and reports true; it also reports true while the victims
// of an earlier plan are still leaving.
func (p *Partition) tryGangPreempt(s *pass, a *app.App, leaf *queue.Queue, phs []*app.Allocation, sum resource.Vector, now time.Time) bool {
	if !p.preemptionEnabled() || len(phs) == 0 {
		return false
	}
	if held := p.gangHolds[a.ID]; len(held) > 0 && slices.ContainsFunc(phs, func(x *app.Allocation) bool { return x.Victims() > 0 }) {
		a.SetWhyAll(app.Reason{Kind: app.Preempting, Object: held[0].ID})
		return true
	}
	var due, checked time.Time
	for _, x := range phs {
		if !x.PreemptOther || x.RequiredNode != "" || x.Victims() > 0 {
			return false
		}
		due = latest(due, x.Created.Add(leaf.Props.PreemptionDelay))
		checked = latest(checked, x.PreemptCheckedAt())
	}
	if now.Before(due) {
		p.wakeAt(due)
		return false
	}
	if !checked.IsZero() {
		if retry := checked.Add(PreemptionRetry); now.Before(retry) {
			p.wakeAt(retry)
			return false
		}
	}
	if s.preemptAttempts >= maxPreemptAttempts {
		p.wakeAt(now)
		return false
	}
	s.preemptAttempts++
	defer p.latency.Stop(latency.Preemption, p.latency.Start(latency.Preemption))
	for _, x := range phs {
		x.SetPreemptCheckedAt(now)
	}
	if !underGuarantee(leaf, sum) {
		return false
	}
	p.releaseGangHolds(a.ID) // a new plan replaces an old one
	plans, ok := p.planGangPreemption(leaf, phs, sum, now)
	if !ok {
		p.wakeAt(now.Add(PreemptionRetry))
		return false
	}
	for i, x := range phs {
		if len(plans[i].victims) > 0 {
			p.preemptVictims(a, x, plans[i].victims, p.noteDecision(a, x, leaf, plans[i], now), now)
		}
		p.holdForGang(a, x, plans[i].node)
	}
	a.SetWhyAll(app.Reason{Kind: app.Preempting, Object: plans[0].node.ID})
	return true
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// planGangPreemption finds a node for every placeholder of phs, in order:
// one with room, or one where victims make room. Each placeholder and
// victim chosen is counted on the nodes, and each victim in its queues'
// preempting resources, while the later ones are planned; everything is
// undone before it returns. It reports false, changing nothing, when one
// placeholder finds no node, or when the victims do not make room for the
// whole gang in every queue on its path.
func (p *Partition) planGangPreemption(leaf *queue.Queue, phs []*app.Allocation, sum resource.Vector, now time.Time) ([]preemptPlan, bool) {
	type placed struct {
		n   *node.Node
		res resource.Vector
	}
	var trial []placed
	var marked []*app.Allocation
	resize := func(n *node.Node, d resource.Vector) {
		n.Resize(d)
		p.index.Update(n)
	}
	// a victim counts as preempting in its queues and as gone from its
	// node while the later placeholders are planned
	mark := func(v *app.Allocation, on bool) {
		setPreempted(v, p.leafOf(p.apps[v.AppID]), on)
		if n := p.nodes[v.NodeID]; n != nil {
			if on {
				resize(n, neg(v.Res))
			} else {
				resize(n, v.Res)
			}
		}
	}
	plans := make([]preemptPlan, len(phs))
	ok := true
	for i, x := range phs {
		n := p.findNode(x)
		if n == nil {
			plan, found := p.planPreemption(leaf, x, now)
			if !found {
				ok = false
				break
			}
			plans[i] = plan
			n = plan.node
			for _, v := range plan.victims {
				mark(v, true)
				marked = append(marked, v)
			}
		}
		plans[i].node = n
		resize(n, x.Res)
		trial = append(trial, placed{n, x.Res})
	}
	for i := len(trial) - 1; i >= 0; i-- {
		resize(trial[i].n, neg(trial[i].res))
	}
	for i := len(marked) - 1; i >= 0; i-- {
		mark(marked[i], false)
	}
	if !ok {
		return nil, false
	}
	// the whole gang must fit every queue max on its path once the
	// victims are gone (each placeholder's plan only made room for itself)
	for q := leaf; q != nil; q = q.Parent {
		var freed resource.Vector
		for _, v := range marked {
			if isAncestor(q, p.leafOf(p.apps[v.AppID])) {
				freed.Inc(v.Res)
			}
		}
		if !q.Max.AllowsAdd(q.Allocated.Sub(freed), sum) {
			return nil, false
		}
	}
	return plans, true
}

// holdForGang holds node n for gang application a: no other ask is placed
// there or reserves it until the gang is placed, times out or leaves. The
// node shows the placeholder x as holding it.
func (p *Partition) holdForGang(a *app.App, x *app.Allocation, n *node.Node) {
	if slices.Contains(p.gangHolds[a.ID], n) {
		return
	}
	if n.ReservedFor != "" {
		p.unreserveNode(n)
	}
	n.Reserve(a.ID, x.Key)
	p.index.Update(n)
	p.gangHolds[a.ID] = append(p.gangHolds[a.ID], n)
}

// heldNode returns a node held for the gang of a on which placeholder x
// fits now, or nil.
func (p *Partition) heldNode(a *app.App, x *app.Allocation) *node.Node {
	for _, n := range p.gangHolds[a.ID] {
		if n.Schedulable && p.nodes[n.ID] == n && x.Res.Fits(n.Available()) {
			if p.predicate == nil || p.predicate(x, n.ID, true) == nil {
				return n
			}
		}
	}
	return nil
}

// releaseGangHolds ends the holds of application appID.
func (p *Partition) releaseGangHolds(appID string) {
	for _, n := range p.gangHolds[appID] {
		n.Reserve("", "")
		if p.nodes[n.ID] == n {
			p.index.Update(n)
		}
	}
	if _, ok := p.gangHolds[appID]; ok {
		delete(p.gangHolds, appID)
		p.dirty = true
	}
}

// dropGangHold ends any gang's hold on node n (the node leaves, or a
// required-node ask takes it).
func (p *Partition) dropGangHold(n *node.Node) {
	for id, held := range p.gangHolds {
		if i := slices.Index(held, n); i >= 0 {
			held = slices.Delete(held, i, i+1)
			n.Reserve("", "")
			if p.nodes[n.ID] == n {
				p.index.Update(n)
			}
			if len(held) == 0 {
				delete(p.gangHolds, id)
			} else {
				p.gangHolds[id] = held
			}
			p.dirty = true
		}
	}
}

// gangHeldNodes is the number of nodes held for gangs.
func (p *Partition) gangHeldNodes() int {
	c := 0
	for _, held := range p.gangHolds {
		c += len(held)
	}
	return c
}

// verifyGangHolds checks that every hold is on a live node that shows it,
// of an application that still has pending placeholders.
func (p *Partition) verifyGangHolds(bad func(string, ...any)) {
	for id, held := range p.gangHolds {
		a, ok := p.apps[id]
		if !ok {
			bad("gang hold of unknown application %s", id)
			continue
		}
		if !hasPendingPlaceholder(a) {
			bad("gang hold of application %s with no pending placeholder", id)
		}
		for _, n := range held {
			if p.nodes[n.ID] != n || n.ReservedFor == "" {
				bad("gang hold of application %s on node %s: node gone or not held", id, n.ID)
			}
		}
	}
}
