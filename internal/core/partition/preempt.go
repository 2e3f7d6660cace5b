package partition

import (
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/latency"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Guaranteed-based preemption across queues (reference §2.12, §2.13). An
// ask that cannot be placed, in a queue still below its guaranteed
// resources, may take room from allocations of other queues that are above
// theirs: never below a victim queue's guarantee, never from its own leaf
// queue, never from higher priorities, never across a preemption fence.
// The victims for one ask are on one node (plus, when a queue max blocks
// the ask, what the queue needs from other nodes); they are released
// through the RM and the node is reserved for the ask until they are gone.

// PreemptionRetry is how long an ask waits between two preemption
// attempts (reference §2.12).
const PreemptionRetry = 15 * time.Second

// PreemptionCooldown is how long an allocation placed by preemption is
// protected from being preempted back by the queues it took from.
const PreemptionCooldown = 5 * time.Minute

// maxPreemptAttempts bounds the preemption attempts of one pass.
const maxPreemptAttempts = 10

// Breadth of the victim search: it stops once this many nodes (at least
// minCandidateNodes, else candidateNodesPercent of the partition's nodes)
// have given a workable set of victims, and takes the best of those, as
// Kubernetes' DefaultPreemption does (its minCandidateNodesAbsolute and
// minCandidateNodesPercentage defaults). Touching every allocation of a
// large cluster costs tens of milliseconds in cache misses alone; a few
// hundred candidate nodes find a set of victims as small in practice.
const minCandidateNodes = 100

// candidateNodesPercent is a variable only so that a benchmark can measure
// other breadths; nothing else sets it.
var candidateNodesPercent = 10

// scopeListAfter is how many nodes the victim search looks at before it
// lists the nodes of its scope (scopeNodes).
const scopeListAfter = 32

// candidateNodes is how many workable nodes the victim search compares.
func (p *Partition) candidateNodes() int {
	return max(minCandidateNodes, p.index.Len()*candidateNodesPercent/100)
}

// preemptPlan is a decision: the node the ask will get and the victims
// to release for it.
type preemptPlan struct {
	node    *node.Node
	victims []*app.Allocation
	// fair is the fair-share level the plan reclaims at, nil for the
	// guaranteed rule
	fair *fairLevel
}

// victimLeaf describes a leaf queue whose allocations may be victims of
// the current ask.
type victimLeaf struct {
	leaf *queue.Queue
	// chain is the leaf and its ancestors below the common ancestor with
	// the ask's queue: the queues a victim's release takes usage from.
	chain []*queue.Queue
	// askPrio is the ask's priority seen from that common ancestor.
	askPrio int32
}

// prio is an allocation's priority seen from the common ancestor.
func (l *victimLeaf) prio(p int32) int32 {
	for _, q := range l.chain {
		p = q.AdjustPriority(p)
	}
	return p
}

// preemptionEnabled reports the partition's preemption.enabled switch.
func (p *Partition) preemptionEnabled() bool {
	return p.cfg == nil || p.cfg.Preemption.Enabled
}

// tryPreempt is called for an ask the pass could not place. When the ask
// may preempt now and suitable victims exist, it releases them, reserves
// the node for the ask and reports true.
func (p *Partition) tryPreempt(s *pass, a *app.App, leaf *queue.Queue, x *app.Allocation, now time.Time) bool {
	if !p.preemptionEnabled() || !x.PreemptOther || x.RequiredNode != "" || x.Victims() > 0 || x.Placeholder {
		return false
	}
	if due := x.Created.Add(leaf.Props.PreemptionDelay); now.Before(due) {
		p.wakeAt(due)
		return false
	}
	if !x.PreemptCheckedAt().IsZero() {
		if due := x.PreemptCheckedAt().Add(PreemptionRetry); now.Before(due) {
			p.wakeAt(due)
			return false
		}
	}
	if s.preemptAttempts >= maxPreemptAttempts {
		p.wakeAt(now)
		return false
	}
	s.preemptAttempts++
	x.SetPreemptCheckedAt(now)
	defer p.latency.Stop(latency.Preemption, p.latency.Start(latency.Preemption))
	plan, ok := p.planPreemption(leaf, x, now)
	if !ok {
		if underGuarantee(leaf, x.Res) || p.fairEntitled(leaf, x) {
			// victims may become eligible (cooldowns, guarantees, the RM's
			// predicates) without anything else changing: try again then
			p.wakeAt(now.Add(PreemptionRetry))
		}
		return false
	}
	p.applyPreemption(a, x, plan, now)
	return true
}

// underGuarantee reports whether the ask's queue may trigger preemption
// (law 4): some queue on its path guarantees a type the ask uses, and for
// each such type the ask fits the guarantee of the lowest queue that sets
// it, on top of what that queue holds. A queue's own guarantee takes
// precedence over its ancestors', as in the reference's remaining
// guaranteed resource of the ask queue: a parent over its guarantee
// because one child over-uses does not stop another child under its own
// from preempting that child.
func underGuarantee(leaf *queue.Queue, ask resource.Vector) bool {
	constrained := false
	for i, x := range ask {
		if x <= 0 {
			continue
		}
		for q := leaf; q != nil && q.Parent != nil; q = q.Parent {
			g, ok := q.Guaranteed.Limit(resource.Index(i))
			if !ok {
				continue
			}
			if q.Allocated[i]+x > g {
				return false
			}
			constrained = true
			break
		}
	}
	return constrained
}

// fenceRoot is the top of the subtree victims may come from (law 7): the
// first queue up from the leaf that is a preemption fence, the first whose
// max the ask would exceed (freeing room outside it would not help), or
// the root.
func fenceRoot(leaf *queue.Queue, ask resource.Vector) *queue.Queue {
	q := leaf
	for q.Parent != nil && q.Props.PreemptionPolicy != config.PolicyFence && q.Max.AllowsAdd(q.Allocated, ask) {
		q = q.Parent
	}
	return q
}

// newVictimLeaf describes leaf q as a source of victims for an ask of
// priority askPrio in askLeaf. A preemption.policy of disabled keeps a
// leaf's allocations out (leafCache.get); a fence bounds the search
// upwards only (fenceRoot): it does not protect its subtree from
// preemptors outside.
func newVictimLeaf(q, askLeaf *queue.Queue, askPrio int32) *victimLeaf {
	lca := commonAncestor(q, askLeaf)
	vl := &victimLeaf{leaf: q, askPrio: askPrio}
	for c := q; c != lca; c = c.Parent {
		vl.chain = append(vl.chain, c)
	}
	for c := askLeaf; c != lca; c = c.Parent {
		vl.askPrio = c.AdjustPriority(vl.askPrio)
	}
	return vl
}

func isAncestor(anc, q *queue.Queue) bool {
	for ; q != nil; q = q.Parent {
		if q == anc {
			return true
		}
	}
	return false
}

func commonAncestor(a, b *queue.Queue) *queue.Queue {
	for q := a; q != nil; q = q.Parent {
		if isAncestor(q, b) {
			return q
		}
	}
	return nil
}

// victim is a candidate victim with what the selection needs of it.
type victim struct {
	x    *app.Allocation
	leaf *victimLeaf
	prio int32
}

// victimBefore orders victims: those that allow preemption before those
// that opted out, non-originators before originators, lower priority
// first, newest first (by creation: the RM's creationTime tag, else when
// the ask arrived; not when it was allocated, which after a restart is
// the same for every recovered allocation), then by application and key
// for determinism.
func victimBefore(a, b victim) int {
	switch {
	case a.x.PreemptSelf != b.x.PreemptSelf:
		if a.x.PreemptSelf {
			return -1
		}
		return 1
	case a.x.Originator != b.x.Originator:
		if !a.x.Originator {
			return -1
		}
		return 1
	case a.prio != b.prio:
		if a.prio < b.prio {
			return -1
		}
		return 1
	case !a.x.Created.Equal(b.x.Created):
		if a.x.Created.After(b.x.Created) {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.x.AppID, b.x.AppID); c != 0 {
		return c
	}
	return strings.Compare(a.x.Key, b.x.Key)
}

// shares reports whether v uses a type the ask needs.
func shares(v, ask resource.Vector) bool {
	for i := range v {
		if v[i] > 0 && ask[i] > 0 {
			return true
		}
	}
	return false
}

// guard keeps victim queues at or above their guarantees (laws 2 and 5)
// while victims are chosen: taken is what chosen victims remove from each
// queue, on top of what earlier preemptions are already removing.
type guard struct {
	taken map[*queue.Queue]resource.Vector
	// fair, when set, also keeps the victims' queues at or above their
	// fair shares (fairshare.go)
	fair *fairLevel
}

// allows reports whether v may be taken without any queue of its chain
// dropping below its guarantee in a type v uses.
func (g *guard) allows(v victim) bool {
	for _, q := range v.leaf.chain {
		t := g.taken[q]
		for i, r := range v.x.Res {
			if r <= 0 {
				continue
			}
			if lim, ok := q.Guaranteed.Limit(resource.Index(i)); ok && q.Allocated[i]-q.Preempting[i]-t[i]-r < lim {
				return false
			}
		}
	}
	return g.fair == nil || g.fair.keeps(v, g.taken)
}

func (g *guard) add(v victim, sign int64) {
	for _, q := range v.leaf.chain {
		t := g.taken[q]
		for i, r := range v.x.Res {
			t[i] += sign * r
		}
		g.taken[q] = t
	}
}

// planPreemption decides the victims for ask x of leaf, or reports false.
// It changes nothing. An ask below its queue's guarantee preempts by the
// guaranteed rule; failing that, an ask whose queue is below its fair share
// under a parent with fair-share preemption on preempts by the fair-share
// rule (fairshare.go).
func (p *Partition) planPreemption(leaf *queue.Queue, x *app.Allocation, now time.Time) (preemptPlan, bool) {
	if underGuarantee(leaf, x.Res) {
		if top := fenceRoot(leaf, x.Res); top != leaf && anyVictimLeaf(top, leaf) {
			if plan, ok := p.planVictims(leaf, x, now, victimScope{top: top, exclude: leaf}); ok {
				return plan, true
			}
		}
	}
	if x.Placeholder {
		return preemptPlan{}, false // a gang preempts by the guaranteed rule only
	}
	return p.planFairShare(leaf, x, now)
}

// victimScope bounds where the victims of one plan come from: leaves below
// top, not in exclude's subtree; fair, when set, keeps the victims' queues
// at or above their fair shares.
type victimScope struct {
	top, exclude *queue.Queue
	fair         *fairLevel
}

// anyVictimLeaf reports whether some leaf below top, outside exclude's
// subtree, holds resources and allows preemption (leafCache.get would
// accept it). It descends only into queues that hold something.
func anyVictimLeaf(top, exclude *queue.Queue) bool {
	if top == exclude || top.Allocated.IsZero() {
		return false
	}
	if top.Leaf {
		return top.Props.PreemptionPolicy != config.PolicyDisabled
	}
	found := false
	top.EachChild(func(c *queue.Queue) {
		found = found || anyVictimLeaf(c, exclude)
	})
	return found
}

// leafCache finds, for one plan, the victimLeaf of a leaf queue on first
// use: a decision touches the leaves of the allocations it looks at, not
// every queue of the tree.
type leafCache struct {
	scope   victimScope
	askLeaf *queue.Queue
	askPrio int32
	m       map[*queue.Queue]*victimLeaf
}

// get returns q's victimLeaf, or nil when q's allocations may not be
// victims: the ask's own leaf, a leaf with preemption.policy disabled or
// holding nothing, or one outside the scope.
func (c *leafCache) get(q *queue.Queue) *victimLeaf {
	vl, ok := c.m[q]
	if ok {
		return vl
	}
	if q != nil && q.Leaf && q != c.askLeaf && q.Props.PreemptionPolicy != config.PolicyDisabled && !q.Allocated.IsZero() &&
		isAncestor(c.scope.top, q) && !isAncestor(c.scope.exclude, q) {
		vl = newVictimLeaf(q, c.askLeaf, c.askPrio)
	}
	c.m[q] = vl
	return vl
}

// all returns the victimLeaf of every leaf in scope.
func (c *leafCache) all() map[*queue.Queue]*victimLeaf {
	out := map[*queue.Queue]*victimLeaf{}
	var walk func(q *queue.Queue)
	walk = func(q *queue.Queue) {
		if !q.Leaf {
			for _, ch := range q.Children() {
				walk(ch)
			}
			return
		}
		if vl := c.get(q); vl != nil {
			out[q] = vl
		}
	}
	walk(c.scope.top)
	return out
}

// planVictims chooses the node and victims for ask x of leaf within scope,
// or reports false. It changes nothing.
func (p *Partition) planVictims(leaf *queue.Queue, x *app.Allocation, now time.Time, scope victimScope) (preemptPlan, bool) {
	leaves := &leafCache{scope: scope, askLeaf: leaf, askPrio: x.Priority, m: map[*queue.Queue]*victimLeaf{}}
	eligible := func(v *app.Allocation) (victim, bool) {
		if v.Preempted || v.Released || v.Placeholder || v.RequiredNode != "" || v.NodeID == "" || !shares(v.Res, x.Res) {
			return victim{}, false
		}
		if now.Before(v.CooldownUntil()) && slices.Contains(v.TookFrom(), leaf.Path) {
			return victim{}, false
		}
		a := p.apps[v.AppID]
		if a == nil {
			return victim{}, false
		}
		vl := leaves.get(p.leafOf(a))
		if vl == nil {
			return victim{}, false
		}
		pr := vl.prio(v.Priority)
		if pr > vl.askPrio {
			return victim{}, false // law 6
		}
		return victim{x: v, leaf: vl, prio: pr}, true
	}
	g := guard{taken: map[*queue.Queue]resource.Vector{}, fair: scope.fair}
	var best preemptPlan
	var bestScore [3]int64
	var plans []nodePlan
	var cands, chosen []victim
	// blocked: a queue max stops the ask, so victims must also make room
	// in the queues; the node may have room already
	blocked := blockingMax(leaf, &x.Res) != nil
	if blocked {
		best.node = p.findNode(x)
	}
	workable, enough := 0, p.candidateNodes()
	// the scope's nodes are listed once the search has looked at
	// scopeListAfter nodes without ending: the first nodes usually give
	// a plan no node can beat
	var only map[*node.Node]bool
	looked, listed := 0, false
	// a plan at floor ends the search (victimbound.go)
	var floor [3]int64
	hasFloor, checked := false, false
	if best.node == nil && stopAtFloor {
		floor, hasFloor = p.planFloor(x, scope)
	}
	p.nodeIndex().Ascend(func(n *node.Node) bool {
		if best.node != nil && len(best.victims) == 0 {
			return false // a node has room already: only the queues need victims
		}
		if workable >= enough {
			return false
		}
		if looked == scopeListAfter && !listed {
			only, listed = p.scopeNodes(leaves), true
		}
		if only != nil && !only[n] {
			return true // no allocation of the scope's leaves: no candidates
		}
		if !n.Schedulable || (n.ReservedFor != "" && !n.HeldFor(x.AppID, x.Key)) || !x.Res.Fits(n.Capacity.Sub(n.Occupied)) {
			return true
		}
		avail := n.Available()
		if x.Res.Fits(avail) {
			return true // placeable without victims: not a preemption node
		}
		cands = cands[:0]
		looked++
		p.victimNodes++
		n.Each(func(v *app.Allocation) bool {
			if c, ok := eligible(v); ok {
				cands = append(cands, c)
			}
			return true
		})
		if len(cands) == 0 {
			return true
		}
		most := avail
		for _, c := range cands {
			most.Inc(c.x.Res)
		}
		if !x.Res.Fits(most) {
			return true // even every candidate would not make room
		}
		slices.SortFunc(cands, victimBefore)
		chosen = chosen[:0]
		for _, c := range cands {
			if x.Res.Fits(avail) {
				break
			}
			if !helps(c.x.Res, x.Res, avail) || !g.allows(c) {
				continue
			}
			g.add(c, 1)
			chosen = append(chosen, c)
			avail.Inc(c.x.Res)
		}
		if !x.Res.Fits(avail) {
			for _, c := range chosen {
				g.add(c, -1)
			}
			return true
		}
		// keep only what is needed, dropping the most protected first
		for i := len(chosen) - 1; i >= 0; i-- {
			if x.Res.Fits(avail.Sub(chosen[i].x.Res)) {
				avail.Dec(chosen[i].x.Res)
				g.add(chosen[i], -1)
				chosen = slices.Delete(chosen, i, i+1)
			}
		}
		score := [3]int64{int64(len(chosen)), 0, 0}
		for _, c := range chosen {
			if !c.x.PreemptSelf {
				score[1]++
			}
			if c.x.Originator {
				score[1]++
			}
			score[2] += int64(c.prio)
		}
		atFloor := hasFloor && !less3(floor, score)
		stop := false
		switch {
		case p.preemptCheck != nil:
			// the RM checks plans best first: keep every one; a plan at
			// the floor comes before any other yet to be found, so the
			// RM is asked about it at once
			np := nodePlan{node: n, score: score, order: workable, extra: extraVictims(cands, chosen, &g)}
			for _, c := range chosen {
				np.victims = append(np.victims, c.x)
			}
			if atFloor {
				if plan, ok := p.checkPlan(x, &np); ok {
					best, checked, stop = plan, true, true
				}
			}
			plans = append(plans, np)
		case best.node == nil || less3(score, bestScore):
			best.node, bestScore = n, score
			best.victims = best.victims[:0]
			for _, c := range chosen {
				best.victims = append(best.victims, c.x)
			}
			stop = atFloor
		}
		for _, c := range chosen {
			g.add(c, -1)
		}
		workable++
		return !stop
	})
	if p.preemptCheck != nil && !checked && (best.node == nil || len(best.victims) > 0) {
		var ok bool
		if best, ok = p.bestChecked(x, plans); !ok {
			return preemptPlan{}, false
		}
	}
	if best.node == nil {
		return preemptPlan{}, false
	}
	if blocked {
		roomy := len(best.victims) == 0 // the node had room: victims for the queues only
		if !p.queueRoom(leaf, x, &best.victims, leaves, eligible, &g) {
			return preemptPlan{}, false
		}
		if roomy {
			if n := p.victimsNode(x, best.victims); n != nil {
				best.node = n
			}
		}
	}
	best.fair = scope.fair
	return best, true
}

// victimsNode is the node, in victim order, whose victims make room for x
// there (with what it has free): the node the preemptor is reserved for
// and placed on when victims only make room in the queues, as in the
// reference, which prefers a node holding victims. Nil when none fits.
func (p *Partition) victimsNode(x *app.Allocation, victims []*app.Allocation) *node.Node {
	for i, v := range victims {
		n, ok := p.nodes[v.NodeID]
		if !ok || slices.ContainsFunc(victims[:i], func(u *app.Allocation) bool { return u.NodeID == v.NodeID }) {
			continue
		}
		if !n.Schedulable || (n.ReservedFor != "" && !n.HeldFor(x.AppID, x.Key)) {
			continue
		}
		freed := n.Available()
		for _, u := range victims[i:] {
			if u.NodeID == n.ID {
				freed.Inc(u.Res)
			}
		}
		if x.Res.Fits(freed) && p.admits(x, n, false) {
			return n
		}
	}
	return nil
}

// queueRoom adds victims from any node until every queue on the ask's
// path has room for it once the victims are gone (plan.victims grows in
// place). It reports false when the eligible victims do not suffice.
func (p *Partition) queueRoom(leaf *queue.Queue, x *app.Allocation, victims *[]*app.Allocation, leaves *leafCache, eligible func(*app.Allocation) (victim, bool), g *guard) bool {
	removed := func(q *queue.Queue) resource.Vector {
		var r resource.Vector
		for _, v := range *victims {
			if isAncestor(q, p.leafOf(p.apps[v.AppID])) {
				r.Inc(v.Res)
			}
		}
		return r
	}
	fits := func() bool {
		for q := leaf; q != nil; q = q.Parent {
			if !q.Max.AllowsAdd(q.Allocated.Sub(removed(q)), x.Res) {
				return false
			}
		}
		return true
	}
	if fits() {
		return true
	}
	taken := map[*app.Allocation]bool{}
	for _, v := range *victims {
		taken[v] = true
		if c, ok := eligible(v); ok {
			g.add(c, 1)
		}
	}
	var cands []victim
	// every leaf in scope, listed only now: a full cluster's root max
	// blocks every ask, and the victims on the chosen node usually
	// suffice
	for q := range leaves.all() {
		for _, a := range q.Apps() {
			a.Each(func(v *app.Allocation) bool {
				if c, ok := eligible(v); ok && !taken[v] {
					cands = append(cands, c)
				}
				return true
			})
		}
	}
	slices.SortFunc(cands, victimBefore)
	for _, c := range cands {
		if !g.allows(c) {
			continue
		}
		g.add(c, 1)
		*victims = append(*victims, c.x)
		if fits() {
			return true
		}
	}
	return false
}

// helps reports whether freeing v brings the ask closer to fitting avail.
func helps(v, ask, avail resource.Vector) bool {
	for i := range v {
		if v[i] > 0 && ask[i] > avail[i] {
			return true
		}
	}
	return false
}

// nodePlan is one node's workable set of victims for an ask: the fewest
// and least protected ones (victims), and, for the RM's
// PreemptionPredicates, the further eligible ones in victim order that
// the RM may take too (extra). score orders plans: fewer victims, fewer
// protected ones (opted out, originators), lower priorities; order is the
// node's position in the search.
type nodePlan struct {
	node    *node.Node
	victims []*app.Allocation
	extra   []*app.Allocation
	score   [3]int64
	order   int
	// asked is set once the RM was asked about the plan
	asked bool
}

// extraVictims lists the candidates beyond chosen that could still be
// taken without breaking a guarantee, in victim order. g holds chosen and
// is left as it was.
func extraVictims(cands, chosen []victim, g *guard) []*app.Allocation {
	var out []*app.Allocation
	var added []victim
	for _, c := range cands {
		if slices.ContainsFunc(chosen, func(v victim) bool { return v.x == c.x }) || !g.allows(c) {
			continue
		}
		g.add(c, 1)
		added = append(added, c)
		out = append(out, c.x)
	}
	for _, c := range added {
		g.add(c, -1)
	}
	return out
}

// bestChecked returns the best plan the RM's PreemptionPredicates
// accepts, trying plans best first. The RM is offered the plan's victims
// followed by its extra ones, starting from the last chosen victim
// (startIndex); it answers with the last victim it needed, which may
// reach into the extra ones, never below the chosen.
func (p *Partition) bestChecked(x *app.Allocation, plans []nodePlan) (preemptPlan, bool) {
	slices.SortFunc(plans, func(a, b nodePlan) int {
		if less3(a.score, b.score) {
			return -1
		}
		if less3(b.score, a.score) {
			return 1
		}
		return a.order - b.order
	})
	for i := range plans {
		if plans[i].asked {
			continue // refused during the search
		}
		if plan, ok := p.checkPlan(x, &plans[i]); ok {
			return plan, true
		}
	}
	return preemptPlan{}, false
}

// checkPlan asks the RM's PreemptionPredicates about one plan (see
// bestChecked) and returns the plan it accepts.
func (p *Partition) checkPlan(x *app.Allocation, np *nodePlan) (preemptPlan, bool) {
	np.asked = true
	all := append(slices.Clip(np.victims), np.extra...)
	keys := make([]string, len(all))
	for i, v := range all {
		keys[i] = v.Key
	}
	ok, last := p.preemptCheck(x, np.node.ID, keys, len(np.victims)-1)
	if !ok {
		return preemptPlan{}, false
	}
	last = min(max(last, len(np.victims)-1), len(all)-1)
	return preemptPlan{node: np.node, victims: all[:last+1]}, true
}

func less3(a, b [3]int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// applyPreemption carries out a plan: every victim is marked, counted as
// preempting in its queues and released to the RM with
// PREEMPTED_BY_SCHEDULER; the node is reserved for the ask.
func (p *Partition) applyPreemption(a *app.App, x *app.Allocation, plan preemptPlan, now time.Time) {
	p.preemptVictims(a, x, plan.victims, p.noteDecision(a, x, p.leafOf(a), plan, now), now)
	if k, has := p.appReserved[a.ID]; has {
		p.unreserve(k)
	}
	if plan.node.ReservedFor == "" {
		p.reserveNode(a, x, plan.node)
	}
	a.SetWhy(x, app.Reason{Kind: app.Preempting, Object: plan.node.ID})
}

// preemptVictims marks victims as preempted for ask x of a, counts them as
// preempting in their queues and releases them to the RM with
// PREEMPTED_BY_SCHEDULER; the release message and the victim's event end
// with why (noteDecision).
func (p *Partition) preemptVictims(a *app.App, x *app.Allocation, victims []*app.Allocation, why string, now time.Time) {
	l := p.log.Preemption
	if x.RequiredNode != "" {
		l = p.log.RequiredNodePreemption
	}
	if on(l) {
		keys := make([]string, len(victims))
		for i, v := range victims {
			keys[i] = v.AppID + "/" + v.Key
		}
		debug(l, "preempting", slog.String("appID", a.ID), slog.String("allocationKey", x.Key), slog.String("queue", a.QueuePath),
			slog.Any("victims", keys))
	}
	x.TriggeredPreemption = true
	took := x.TookFrom()[:0]
	for _, v := range victims {
		vleaf := p.markVictim(v, "preempted by "+x.Key+" of application "+a.ID+": "+why, now)
		if p.sink != nil {
			p.emitRequest(v.Key, v.AppID, "Preempted by "+x.Key+" from application "+a.ID+" in "+a.QueuePath+": "+why, v.Res, now)
		}
		v.SetPreemptedFor(x)
		x.AddVictims(1)
		if !slices.Contains(took, vleaf.Path) {
			took = append(took, vleaf.Path)
		}
	}
	x.SetTookFrom(took)
}

// markVictim marks v preempted, counts it as preempting in its queues and
// releases it to the RM with PREEMPTED_BY_SCHEDULER and msg (the caller
// sends the request event the RM shows on the victim). It returns v's leaf
// queue.
func (p *Partition) markVictim(v *app.Allocation, msg string, now time.Time) *queue.Queue {
	vleaf := p.leafOf(p.apps[v.AppID])
	setPreempted(v, vleaf, true)
	p.Out.Released = append(p.Out.Released, Released{
		Partition: p.Name, AppID: v.AppID, AllocationKey: v.Key, Termination: PreemptedByScheduler, Message: msg,
	})
	p.Stats.Preemptions++
	return vleaf
}

// setPreempted marks v, of leaf queue leaf, as preempted or not and keeps
// the Preempting roll-up of leaf and its ancestors.
func setPreempted(v *app.Allocation, leaf *queue.Queue, on bool) {
	v.Preempted = on
	for q := leaf; q != nil; q = q.Parent {
		if on {
			q.Preempting.Inc(v.Res)
		} else {
			q.Preempting.Dec(v.Res)
		}
	}
}

// victimGone updates the preemption bookkeeping when a preempted
// allocation leaves (the RM confirmed its release, or its application
// went).
func (p *Partition) victimGone(v *app.Allocation, leaf *queue.Queue) {
	if !v.Preempted {
		return
	}
	setPreempted(v, leaf, false)
	if f := v.PreemptedFor(); f != nil {
		f.AddVictims(-1)
		v.SetPreemptedFor(nil)
	}
}

// verifyPreempting checks that every queue's Preempting equals what the
// preempted allocations here and below hold, and that every preemptor's
// outstanding victim count matches its victims.
func (p *Partition) verifyPreempting(bad func(string, ...any)) {
	want := map[*queue.Queue]resource.Vector{}
	victims := map[*app.Allocation]int{}
	for _, a := range p.apps {
		leaf := p.leafOf(a)
		a.Each(func(x *app.Allocation) bool {
			if !x.Preempted {
				return true
			}
			if x.NodeID == "" {
				bad("allocation %s/%s is preempted but not allocated", a.ID, x.Key)
			}
			for q := leaf; q != nil; q = q.Parent {
				v := want[q]
				v.Inc(x.Res)
				want[q] = v
			}
			if x.PreemptedFor() != nil {
				victims[x.PreemptedFor()]++
			}
			return true
		})
	}
	var walk func(q *queue.Queue)
	walk = func(q *queue.Queue) {
		if q.Preempting != want[q] {
			bad("queue %s: preempting %v, preempted allocations hold %v", q.Path, q.Preempting, want[q])
		}
		for _, c := range q.Children() {
			walk(c)
		}
	}
	walk(p.tree.Root)
	for _, a := range p.apps {
		a.Each(func(x *app.Allocation) bool {
			if x.Victims() != victims[x] {
				bad("ask %s/%s counts %d victims, %d are preempted for it", a.ID, x.Key, x.Victims(), victims[x])
			}
			return true
		})
	}
}

// tryRequiredNodePreempt makes room for an ask that must run on one node
// (a DaemonSet pod, reference §2.14): it ignores queue guarantees and
// preemption policies, takes victims from that node only, never other
// required-node allocations or higher priorities, and prefers regular
// allocations, then opted-out ones, then originators; within each, lower
// priority, newest and smaller first. An attempt that finds no victims is
// made again after PreemptionRetry.
func (p *Partition) tryRequiredNodePreempt(a *app.App, x *app.Allocation, now time.Time) bool {
	if !p.preemptionEnabled() || x.Victims() > 0 {
		return false
	}
	if c := x.PreemptCheckedAt(); !c.IsZero() {
		// an attempt that found no victims is made again, as the
		// reference retries while the node cannot take the ask
		if due := c.Add(PreemptionRetry); now.Before(due) {
			p.wakeAt(due)
			return false
		}
	}
	n, ok := p.nodes[x.RequiredNode]
	if !ok || !x.Res.Fits(n.Capacity.Sub(n.Occupied)) { // drained or not (findNode)
		return false
	}
	x.SetPreemptCheckedAt(now)
	defer p.latency.Stop(latency.Preemption, p.latency.Start(latency.Preemption))
	var cands []*app.Allocation
	n.Each(func(v *app.Allocation) bool {
		if !v.Preempted && !v.Released && v.RequiredNode == "" && v.Priority <= x.Priority && shares(v.Res, x.Res) {
			cands = append(cands, v)
		}
		return true
	})
	slices.SortFunc(cands, leastProtectedFirst(n.Capacity))
	avail := n.Available()
	var victims []*app.Allocation
	for _, v := range cands {
		if x.Res.Fits(avail) {
			break
		}
		if helps(v.Res, x.Res, avail) {
			victims = append(victims, v)
			avail.Inc(v.Res)
		}
	}
	if !x.Res.Fits(avail) || len(victims) == 0 {
		if l := p.log.RequiredNodePreemption; on(l) {
			debug(l, "no preemption victim on the required node", slog.String("appID", a.ID), slog.String("allocationKey", x.Key), slog.String("nodeID", n.ID))
		}
		if p.sink != nil { // once: one attempt per ask
			p.emitRequest(x.Key, a.ID, "Unschedulable request '"+x.Key+"' with required node '"+n.ID+"', no preemption victim found", x.Res, now)
		}
		return false
	}
	if n.ReservedFor != "" && !n.HeldFor(x.AppID, x.Key) {
		p.unreserveNode(n) // a required-node ask outranks a reservation
	}
	p.applyPreemption(a, x, preemptPlan{node: n, victims: victims}, now)
	return true
}

// leastProtectedFirst orders victims for required-node and quota
// preemption: regular allocations, then those that opted out of
// preemption, then originators; within each, lower priority, newer (by
// creation, as victimBefore) and smaller (dominant share of total) first;
// ties by application and key.
func leastProtectedFirst(total resource.Vector) func(u, v *app.Allocation) int {
	rank := func(v *app.Allocation) int {
		switch {
		case v.Originator:
			return 2
		case !v.PreemptSelf:
			return 1
		}
		return 0
	}
	return func(u, v *app.Allocation) int {
		if r, s := rank(u), rank(v); r != s {
			return r - s
		}
		if u.Priority != v.Priority {
			if u.Priority < v.Priority {
				return -1
			}
			return 1
		}
		if !u.Created.Equal(v.Created) {
			if u.Created.After(v.Created) {
				return -1
			}
			return 1
		}
		if su, sv := resource.DominantShare(u.Res, total), resource.DominantShare(v.Res, total); su != sv {
			if su < sv {
				return -1
			}
			return 1
		}
		if c := strings.Compare(u.AppID, v.AppID); c != 0 {
			return c
		}
		return strings.Compare(u.Key, v.Key)
	}
}
