package replay

import (
	"fmt"
	"time"
)

// A task the scheduler preempts goes back to the pending queue.
//
// Borg does the same: "We add the preempted tasks to the scheduler's
// pending queue, rather than migrate or hibernate them" (Verma et al.,
// EuroSys 2015, §3.2), and the 2011 trace records such a task as an
// EVICT followed, in the same second, by a new SUBMIT whose delay counts
// like any other. The trace cannot resubmit a task that only the replay's
// scheduler preempted, so the replay's RM asks for it again itself: a new
// submission at the preemption, under a new allocation key, with no
// submission latency (the task is already in the scheduler's queue) but
// behind the throughput like every placement. Its run keeps what the
// trace says of it: once placed again it runs as long as the trace ran it,
// or until the trace ends it.

// nextGen starts a new submission of t: a new generation and with it a new
// allocation key, so that answers about the previous one are told apart.
func (t *task) nextGen() {
	t.gen++
	t.key = fmt.Sprintf("%d-%d-%d", t.job, t.index, t.gen)
}

// requeuePreempted asks again, at now, for a task whose allocation the
// scheduler released as preempted.
func (s *sim) requeuePreempted(t *task, now time.Duration) {
	delete(s.byKey, t.key)
	t.nextGen()
	s.byKey[t.key] = t
	t.submit, t.allocAt, t.node = now, -1, ""
	t.sent, t.held = true, true
	s.stats.Submitted++
	s.stats.pendingNow++
	s.ready(t, now)
}
