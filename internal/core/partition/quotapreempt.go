package partition

import (
	"fmt"
	"log/slog"
	"math/bits"
	"slices"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Quota-change preemption (reference §2.15). When the usage of a managed
// queue exceeds its max (the max was lowered on a reload, or the RM
// recovered allocations) and quota preemption is on for it (partition
// preemption.quotapreemptionenabled, queue quota.preemption.delay > 0),
// the queue gets a trigger time: the time of the change plus the delay.
// When it is due, allocations worth the excess are preempted from the
// queue's leaves, regular ones before opted-out ones before originators,
// never taking a queue below its guarantee. The trigger clears when usage
// is back at or below max (the RM confirmed the releases).
//
// Triggers are refreshed whenever the engine steps (Tick) and on a reload;
// a timer (wakeAt) makes the engine step when the next one is due, instead
// of the reference's poll every second.

// QuotaRecheck is the least time between two looks for victims of the same
// due trigger while its queue stays over its max; the look itself happens
// only when the engine steps anyway.
const QuotaRecheck = time.Second

// quotaPreemptionEnabled reports the partition's
// preemption.quotapreemptionenabled switch.
func (p *Partition) quotaPreemptionEnabled() bool {
	return p.cfg != nil && p.cfg.Preemption.QuotaPreemptionEnabled
}

// quotaApplies reports whether quota preemption applies to q: managed
// queues below the root with a positive delay, in a partition that has it
// switched on.
func (p *Partition) quotaApplies(q *queue.Queue) bool {
	return q.Parent != nil && q.Managed && q.Props.QuotaPreemptionDelay > 0 && p.quotaPreemptionEnabled()
}

// refreshQuota brings every queue's trigger up to date at time now and
// returns the queues whose trigger is due and not checked within
// QuotaRecheck, parents before their children. It arms a wake-up for the
// earliest trigger still to come (NextTimer reports it too, as a pass
// may consume the wake-up before the trigger is due).
func (p *Partition) refreshQuota(now time.Time) []*queue.Queue {
	if p.quotaArmed == 0 && !p.quotaPreemptionEnabled() {
		p.quotaNext = time.Time{}
		return nil
	}
	armed := 0
	var due []*queue.Queue
	var next time.Time
	p.tree.Each(func(q *queue.Queue) {
		if !q.UpdateQuotaTrigger(p.quotaApplies(q), now) {
			return
		}
		armed++
		t := q.QuotaPreemption
		switch {
		case now.Before(t.At):
			if next.IsZero() || t.At.Before(next) {
				next = t.At
			}
		case t.Checked.IsZero() || !now.Before(t.Checked.Add(QuotaRecheck)):
			due = append(due, q)
		}
	})
	p.quotaArmed, p.quotaNext = armed, next
	if !next.IsZero() {
		p.wakeAt(next)
	}
	return due
}

// quotaPreempt runs the quota-change preemption due at now: top-down, a
// due queue with something to preempt is handled, and no queue below a
// handled one is handled in the same check. It reports whether it
// preempted anything.
func (p *Partition) quotaPreempt(now time.Time) bool {
	var handled []*queue.Queue
	changed := false
	for _, q := range p.refreshQuota(now) {
		if slices.ContainsFunc(handled, func(h *queue.Queue) bool { return isAncestor(h, q) }) {
			continue
		}
		q.QuotaPreemption.Checked = now
		excess := quotaExcess(q)
		if excess.IsZero() {
			continue // what is over max is already being preempted
		}
		handled = append(handled, q)
		victims, claimed := p.planQuotaPreemption(q, excess)
		if len(victims) > 0 {
			p.applyQuotaPreemption(q, victims, excess, claimed, now)
			changed = true
		}
	}
	return changed
}

// quotaExcess is what may be preempted to bring q back to its max: usage
// over max in the limited types, counting what is already being preempted
// as gone, capped by what q and every ancestor hold above their guarantees
// (a queue is never taken below its guarantee).
func quotaExcess(q *queue.Queue) resource.Vector {
	excess := q.Over(q.Allocated.Sub(q.Preempting))
	for a := q; a != nil && !excess.IsZero(); a = a.Parent {
		room := a.OverGuaranteed(a.Allocated.Sub(a.Preempting), excess.Support())
		for i := range excess {
			excess[i] = min(excess[i], room[i])
		}
	}
	return excess
}

// quotaShares splits excess over the leaves below q, proportionally to
// what each child holds above its guarantee in each type, level by level
// (rounded down). Every leaf below q is listed, in tree order; leaves
// without a share have none in shares.
func quotaShares(q *queue.Queue, excess resource.Vector, leaves *[]*queue.Queue, shares map[*queue.Queue]resource.Vector) {
	if q.Leaf {
		*leaves = append(*leaves, q)
		if !excess.IsZero() {
			shares[q] = excess
		}
		return
	}
	kids := q.Children()
	over := make([]resource.Vector, len(kids))
	types := excess.Support()
	var total resource.Vector
	for i, c := range kids {
		over[i] = c.OverGuaranteed(c.Allocated.Sub(c.Preempting), types)
		total.Inc(over[i])
	}
	for i, c := range kids {
		var s resource.Vector
		for k := range excess {
			if excess[k] > 0 && total[k] > 0 {
				s[k] = mulDiv(excess[k], over[i][k], total[k])
			}
		}
		quotaShares(c, s, leaves, shares)
	}
}

// mulDiv returns a*b/c rounded down for 0 <= a, 0 <= b <= c, c > 0,
// without overflow.
func mulDiv(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	quo, _ := bits.Div64(hi, lo, uint64(c))
	return int64(quo)
}

// within reports whether adding r to got stays within limit in every type
// of excess (the types being preempted).
func within(got, r, limit, excess resource.Vector) bool {
	for i := range excess {
		if excess[i] > 0 && got[i]+r[i] > limit[i] {
			return false
		}
	}
	return true
}

// quotaCandidates lists the allocations of leaf that may be victims of a
// quota preemption of excess, least protected first: placed, not
// released or preempted already, no required node, not a placeholder (a
// gang's placeholders go back by its own timeout), and using a type being
// preempted.
func (p *Partition) quotaCandidates(leaf *queue.Queue, excess resource.Vector) []victim {
	var xs []*app.Allocation
	for _, a := range leaf.Apps() {
		a.Each(func(x *app.Allocation) bool {
			if x.NodeID != "" && !x.Preempted && !x.Released && !x.Placeholder && x.RequiredNode == "" && shares(x.Res, excess) {
				xs = append(xs, x)
			}
			return true
		})
	}
	if len(xs) == 0 {
		return nil
	}
	slices.SortFunc(xs, leastProtectedFirst(p.cluster))
	vl := &victimLeaf{leaf: leaf}
	for q := leaf; q != nil; q = q.Parent {
		vl.chain = append(vl.chain, q)
	}
	out := make([]victim, len(xs))
	for i, x := range xs {
		out[i] = victim{x: x, leaf: vl, prio: x.Priority}
	}
	return out
}

// planQuotaPreemption chooses the victims for excess of queue q: first
// every leaf up to its share, then, for what rounding or unsuitable
// victims left, any leaf below q, those furthest from their share first,
// all within the excess; then, when that leaves usage over the max, the
// next victims until the excess is covered. No queue goes below its
// guarantee. It returns the victims and what they hold. It changes
// nothing.
func (p *Partition) planQuotaPreemption(q *queue.Queue, excess resource.Vector) ([]*app.Allocation, resource.Vector) {
	var leaves []*queue.Queue
	shareOf := map[*queue.Queue]resource.Vector{}
	quotaShares(q, excess, &leaves, shareOf)
	cands := map[*queue.Queue][]victim{}
	for _, l := range leaves {
		cands[l] = p.quotaCandidates(l, excess)
	}
	g := guard{taken: map[*queue.Queue]resource.Vector{}}
	got := map[*queue.Queue]resource.Vector{}
	chosen := map[*app.Allocation]bool{}
	var claimed resource.Vector
	var victims []*app.Allocation
	take := func(l *queue.Queue, limit resource.Vector) {
		for _, c := range cands[l] {
			if chosen[c.x] || !within(got[l], c.x.Res, limit, excess) || !within(claimed, c.x.Res, excess, excess) || !g.allows(c) {
				continue
			}
			chosen[c.x] = true
			g.add(c, 1)
			v := got[l]
			v.Inc(c.x.Res)
			got[l] = v
			claimed.Inc(c.x.Res)
			victims = append(victims, c.x)
		}
	}
	for _, l := range leaves {
		take(l, shareOf[l])
	}
	if claimed != excess && len(leaves) > 1 {
		unfilled := func(l *queue.Queue) float64 {
			f := 0.0
			for i := range excess {
				if excess[i] > 0 {
					f = max(f, float64(shareOf[l][i]-got[l][i])/float64(excess[i]))
				}
			}
			return f
		}
		rest := slices.Clone(leaves)
		slices.SortStableFunc(rest, func(a, b *queue.Queue) int {
			fa, fb := unfilled(a), unfilled(b)
			switch {
			case fa > fb:
				return -1
			case fa < fb:
				return 1
			}
			return 0
		})
		for _, l := range rest {
			take(l, excess)
		}
	}
	// enough victims, then stop: when the victims that fit within the
	// excess leave usage over the max, the next ones, least protected
	// first, are taken until it is covered, still never below a guarantee
	for _, l := range leaves {
		for _, c := range cands[l] {
			if covers(claimed, excess) {
				return victims, claimed
			}
			if chosen[c.x] || !helpsCover(claimed, c.x.Res, excess) || !g.allows(c) {
				continue
			}
			chosen[c.x] = true
			g.add(c, 1)
			claimed.Inc(c.x.Res)
			victims = append(victims, c.x)
		}
	}
	return victims, claimed
}

// covers reports whether claimed reaches excess in every type of excess.
func covers(claimed, excess resource.Vector) bool {
	for i := range excess {
		if excess[i] > 0 && claimed[i] < excess[i] {
			return false
		}
	}
	return true
}

// helpsCover reports whether r holds a type of excess that claimed does
// not cover yet.
func helpsCover(claimed, r, excess resource.Vector) bool {
	for i := range excess {
		if excess[i] > 0 && claimed[i] < excess[i] && r[i] > 0 {
			return true
		}
	}
	return false
}

// applyQuotaPreemption carries out a quota preemption of queue q: every
// victim is marked, counted as preempting and released to the RM with
// PREEMPTED_BY_SCHEDULER (each victim reported with its own application),
// with a request event per victim and a QUEUE_PREEMPTION summary event.
func (p *Partition) applyQuotaPreemption(q *queue.Queue, victims []*app.Allocation, excess, claimed resource.Vector, now time.Time) {
	msg := "Preempted by Quota change enforcement process in " + q.Path
	if l := p.log.QuotaPreemption; on(l) {
		debug(l, "quota change preemption", slog.String("queue", q.Path), slog.String("excess", p.reg.Format(excess)),
			slog.String("claimed", p.reg.Format(claimed)), slog.Int("victims", len(victims)))
	}
	p.recordQuota(q, victims, excess, now)
	for _, v := range victims {
		p.markVictim(v, msg, now)
		p.emitRequest(v.Key, v.AppID, msg, v.Res, now)
	}
	summary := fmt.Sprintf("Quota Preemption results summary: preemptable resources: %s, claimed resources: %s, selected victims: %d, preempted victims: %d",
		p.reg.Format(excess), p.reg.Format(claimed), len(victims), len(victims))
	p.emitQueue(event.Set, event.QueuePreemption, q.Path, summary, claimed, now)
}

// verifyQuotaTriggers checks that only queues quota preemption applies to
// have a trigger, and that quotaArmed counts at least those (it is exact
// after every refresh; a trigger clears lazily, at the next step).
func (p *Partition) verifyQuotaTriggers(bad func(string, ...any)) {
	armed := 0
	p.tree.Each(func(q *queue.Queue) {
		if q.QuotaPreemption.At.IsZero() {
			return
		}
		armed++
		if !p.quotaApplies(q) {
			bad("queue %s: quota preemption trigger at %v, but quota preemption does not apply to it", q.Path, q.QuotaPreemption.At)
		}
	})
	if armed > p.quotaArmed {
		bad("%d queues with a quota preemption trigger, %d counted", armed, p.quotaArmed)
	}
}
