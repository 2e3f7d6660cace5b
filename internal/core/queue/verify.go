package queue

import (
	"errors"
	"fmt"
	"math"
)

// Verify checks the tree's ordering state against a recomputation: every
// queue's priority and pending weight, the membership of queues and applications in their
// parent's ordering (exactly those with something pending), and the heap
// order itself. It is meant for tests and the simulator, outside a pass.
func (t *Tree) Verify() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	var walk func(q *Queue)
	walk = func(q *Queue) {
		raw := int32(math.MinInt32)
		if q.Leaf {
			for _, a := range q.apps {
				if a.PendingCount() > 0 {
					raw = max(raw, a.Priority())
				}
				in := a.QueueIndex >= 0 && a.QueueIndex < len(q.runnable.a) && q.runnable.a[a.QueueIndex] == a
				if want := a.PendingCount() > 0; in != want {
					bad("queue %s: app %s in ordering %v, pending %d", q.Path, a.ID, in, a.PendingCount())
				}
			}
			for i := 1; i < len(q.runnable.a); i++ {
				if q.runnable.less(q.runnable.a[i], q.runnable.a[(i-1)/2]) {
					bad("queue %s: app ordering violates the heap at %d", q.Path, i)
				}
			}
		}
		for i, n := range q.names {
			c := q.children[n]
			if int(c.rank) != i || (i > 0 && q.names[i-1] >= n) {
				bad("queue %s: child %s ranked %d, %d by name", q.Path, c.Path, c.rank, i)
			}
			walk(c)
			if c.prio != math.MinInt32 {
				raw = max(raw, c.prio)
			}
			in := c.index >= 0 && c.index < len(q.kids.q) && q.kids.q[c.index] == c
			if want := c.pendingAsks > 0; in != want {
				bad("queue %s: child %s in ordering %v, pending asks %d", q.Path, c.Path, in, c.pendingAsks)
			}
		}
		for i := 1; i < len(q.kids.q); i++ {
			if q.kids.less(q.kids.q[i], q.kids.q[(i-1)/2]) {
				bad("queue %s: child ordering violates the heap at %d", q.Path, i)
			}
		}
		if want := pendingWeight(q); q.pendW != want {
			bad("queue %s: pending weight %d, recomputed %d", q.Path, q.pendW, want)
		}
		if want := q.priorityAfterPolicy(raw); q.prio != want {
			bad("queue %s: priority %d, recomputed %d", q.Path, q.prio, want)
		}
	}
	walk(t.Root)
	return errors.Join(errs...)
}
