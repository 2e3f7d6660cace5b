package queue

import (
	"math"
	"math/bits"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Apply records a change of application a in leaf: its allocated and
// pending resources moved by dAlloc and dPend, and n asks of priority p
// were added (n > 0) or left the pending set (n < 0). It keeps the roll-ups
// on the whole path, the queue priorities and both orderings up to date.
// The application's own state must already reflect the change.
func (leaf *Queue) Apply(a *app.App, dAlloc, dPend resource.Vector, p int32, n int) {
	// the deltas touch two or three types: add only those on each level
	mAlloc, mPend := dAlloc.Support(), dPend.Support()
	for x := leaf; x != nil; x = x.Parent {
		x.Allocated.IncOn(&dAlloc, mAlloc)
		x.Pending.IncOn(&dPend, mPend)
		x.pendingAsks += n
	}
	if n != 0 {
		leaf.count(p, n)
	}
	if mAlloc != 0 {
		leaf.clearHeld()
	}
	leaf.placeApp(a)
	// shares follow Allocated only: a change of pending alone (an ask
	// taken in) leaves them as they are
	leaf.refresh(mAlloc != 0)
}

// AddPending is Apply for an ask of a taken in: res, of support m, joins
// the pending resources on the path and one ask of priority p the pending
// set.
func (leaf *Queue) AddPending(a *app.App, res *resource.Vector, m resource.Mask, p int32) {
	w := weightOn(res, m)
	for x := leaf; x != nil; x = x.Parent {
		x.Pending.IncOn(res, m)
		x.pendW += w
		x.pendingAsks++
	}
	leaf.count(p, 1)
	leaf.placeApp(a)
	leaf.update(false, false)
}

// Placed is Apply for a pending ask of a that was allocated: res, whose
// support is m, moves from pending to allocated on the path and one ask of
// priority p leaves the pending set.
func (leaf *Queue) Placed(a *app.App, res *resource.Vector, m resource.Mask, p int32) {
	w := weightOn(res, m)
	for x := leaf; x != nil; x = x.Parent {
		x.Allocated.IncOn(res, m)
		x.Pending.DecOn(res, m)
		x.pendW -= w
		x.pendingAsks--
	}
	leaf.count(p, -1)
	leaf.holds(res, m)
	leaf.placeApp(a)
	leaf.update(m != 0, false)
}

// count adds n to the number of pending entries at priority p.
func (q *Queue) count(p int32, n int) { q.prios.Add(p, n) }

// placeApp re-keys a in the leaf's ordering and fixes its membership:
// applications with pending asks that are not skipped in this pass.
func (leaf *Queue) placeApp(a *app.App) {
	share := a.SortShare
	if leaf.runnable.fair {
		share = resource.FairShareOf(&a.Allocated, &leaf.Guaranteed, &leaf.fairMax)
	}
	same := rekey(a, share)
	want := a.PendingCount() > 0 && !a.Deferred
	switch {
	case want && a.QueueIndex >= 0:
		if !same {
			leaf.runnable.fix(a.QueueIndex)
		}
	case want:
		leaf.runnable.push(a)
	case a.QueueIndex >= 0:
		leaf.runnable.remove(a)
	}
}

// rekey records the keys the leaf's ordering compares (share, priority,
// submission time; the ID's never change) and reports whether they were
// recorded so already: an app placed by the same values would not move
// (most asks taken in or placed change none of them).
func rekey(a *app.App, share float64) bool {
	sec, nsec := a.SubmitTime.Unix(), int32(a.SubmitTime.Nanosecond())
	same := share == a.SortShare && a.Priority() == a.OrderedPrio && sec == a.OrderedSec && nsec == a.OrderedNsec
	a.SortShare, a.OrderedPrio, a.OrderedSec, a.OrderedNsec = share, a.Priority(), sec, nsec
	return same
}

// refreshPath recomputes priority and share from q up to the root and
// fixes each queue's position in its parent's ordering.
func (q *Queue) refreshPath() { q.refresh(true) }

// refresh is refreshPath; shares are recomputed only when share is set
// (Allocated changed on the path since the last refresh).
func (q *Queue) refresh(share bool) { q.update(share, true) }

// weightOn is pendingWeight's sum for a delta on the types of m: adding
// it to pendW gives pendingWeight of the new Pending (the sums wrap alike).
func weightOn(res *resource.Vector, m resource.Mask) int64 {
	var w int64
	for ; m != 0; m &= m - 1 {
		w += res[bits.TrailingZeros32(uint32(m))]
	}
	return w
}

// update is refresh; the pending weights are summed again only when weigh
// is set (AddPending and Placed keep them up to date themselves).
func (q *Queue) update(share, weigh bool) {
	for x := q; x != nil; x = x.Parent {
		old := x.prio
		x.prio = x.priorityAfterPolicy(x.prios.Max())
		if share && x.Parent != nil { // the root has no siblings to be sorted among
			x.share = resource.FairShareOf(&x.Allocated, &x.Guaranteed, &x.fairMax)
		}
		if weigh {
			x.pendW = pendingWeight(x)
		}
		p := x.Parent
		if p == nil {
			return
		}
		if old != x.prio {
			if old != math.MinInt32 {
				p.count(old, -1)
			}
			if x.prio != math.MinInt32 {
				p.count(x.prio, 1)
			}
		}
		want := x.pendingAsks > 0 && !x.deferred
		switch {
		case want && x.index >= 0:
			p.kids.fix(x.index)
		case want:
			p.kids.push(x)
		case x.index >= 0:
			p.kids.remove(x)
		}
	}
}

// PendingAsks is the number of pending asks in the queue and below.
func (q *Queue) PendingAsks() int { return q.pendingAsks }

// TopChild returns the child the scheduling pass should visit next, or nil.
func (q *Queue) TopChild() *Queue {
	if len(q.kids.q) == 0 {
		return nil
	}
	return q.kids.q[0]
}

// TopApp returns the leaf's application the pass should visit next, or nil.
func (q *Queue) TopApp() *app.App {
	if len(q.runnable.a) == 0 {
		return nil
	}
	return q.runnable.a[0]
}

// Skip takes q out of its parent's ordering for the rest of the pass.
func (t *Tree) Skip(q *Queue) {
	p := q.Parent
	if p == nil || q.deferred {
		return
	}
	q.deferred = true
	p.kids.remove(q)
	if len(p.skipped) == 0 && len(p.skippedA) == 0 {
		t.touched = append(t.touched, p)
	}
	p.skipped = append(p.skipped, q)
}

// SkipApp takes a out of leaf's ordering for the rest of the pass.
func (t *Tree) SkipApp(leaf *Queue, a *app.App) {
	if a.Deferred {
		return
	}
	a.Deferred = true
	leaf.runnable.remove(a)
	if len(leaf.skipped) == 0 && len(leaf.skippedA) == 0 {
		t.touched = append(t.touched, leaf)
	}
	leaf.skippedA = append(leaf.skippedA, a)
}

// EndPass returns every skipped queue and application to its ordering.
func (t *Tree) EndPass() {
	for _, q := range t.touched {
		for _, a := range q.skippedA {
			a.Deferred = false
			if q.apps[a.ID] == a {
				q.placeApp(a)
			}
		}
		clear(q.skippedA)
		q.skippedA = q.skippedA[:0]
		for _, c := range q.skipped {
			c.deferred = false
			if c.Parent == q && q.children[c.Name] == c {
				c.refreshPath()
			}
		}
		clear(q.skipped)
		q.skipped = q.skipped[:0]
	}
	clear(t.touched)
	t.touched = t.touched[:0]
}

// applyProps configures the orderings from the queue's properties.
func (q *Queue) applyProps(p config.Properties) {
	q.Props = p
	q.kids.byPriority = p.SortPriority
	q.runnable.configure(p)
}
