package replay

import (
	"cmp"
	"slices"
	"time"
)

// The scheduler's throughput.
//
// Borg's scheduler places tasks one at a time: it scans the pending queue
// from high to low priority, "modulated by a round-robin scheme within a
// priority to ensure fairness across users and avoid head-of-line blocking
// behind a large job" (Verma et al., EuroSys 2015, §3.4), so the cell
// places a finite number of tasks a second, and when more asks are ready
// than that, the lower priorities and the jobs with many tasks wait. The
// trace shows the limit and the wait: at 12,360 s (part 2) a 4,000-task
// priority-1 job and a 1,057-task one arrive and Borg evicts 6,300
// priority-0 tasks, which are submitted again; the cell places about
// 10,900 tasks in the next 80 s and the free band's p90 delay in that
// part is 39 s.
//
// The replay's scheduler (Paddock) is far faster than that, so the model
// puts Borg's rate in front of it, as a token bucket: the asks whose
// submission latency is over wait in a ready queue; each cycle lets
// through as many as there are tokens, highest priority first and one
// task per job in turn within a priority; tokens come back at SchedRate a
// second up to SchedBurst. The wait in the ready queue is modelled
// latency, not the scheduler's (Summary.ModelDelays).
//
// Both constants are read off the calibration shards' placement counts,
// not fitted to their delays: SchedRate is the rate of the busiest 80 s
// (parts 0-1: 7,890 SCHEDULE events, 99/s), SchedBurst the busiest 10 s
// from a multiple of 10 s of trace time less 10 s of that rate
// (3,172 - 990). A second bucket counts the same work in equivalence
// classes (classes.go). The trace's counts are a lower
// bound on what Borg could place (it placed what was asked), so the rate
// is the cell's demonstrated throughput, not its capacity. Parts 2-3 give
// 136/s and 1,700 the same way. docs/replay.md gives the results of both and
// their sensitivity.
//
// The measurement is the 2011 cell's, so a 2019 trace has no throughput
// limit unless Options.SchedRate sets one: on a generated 2019 cell, whose
// delays the generator draws without any limit, 100/s holds the free
// tier's tasks behind the higher tiers (p90 24 s against the drawn 6 s).

// DefaultSchedRate is the reclaim model's scheduler throughput, asks per
// second of trace time (parts 0-1's busiest 80 s).
const DefaultSchedRate = 100.0

// DefaultSchedBurst is the reclaim model's burst, asks at once (parts
// 0-1's busiest 10 s less 10 s of DefaultSchedRate, rounded).
const DefaultSchedBurst = 2200.0

// readyAsk is an ask whose latency is over, waiting for the throughput.
type readyAsk struct {
	t   *task
	gen int
	at  time.Duration // when its latency ended
}

// ready queues a held task whose latency ended at at: straight to the
// scheduler without a throughput limit, otherwise to the ready queue.
func (s *sim) ready(t *task, at time.Duration) {
	r := readyAsk{t: t, gen: t.gen, at: at}
	if s.opts.SchedRate <= 0 {
		s.release(r, at)
		return
	}
	s.readyQ = append(s.readyQ, r)
}

// dispatch hands the scheduler at most the throughput's worth of the ready
// asks at the cycle at: highest priority first, round-robin over the jobs
// within a priority, each job's asks in the order they became ready.
func (s *sim) dispatch(at time.Duration) {
	live := s.readyQ[:0]
	for _, r := range s.readyQ {
		if r.t.gen == r.gen && r.t.held {
			live = append(live, r)
		}
	}
	s.readyQ = live
	prev := s.lastDispatch
	s.refill(at)
	if len(live) == 0 {
		return
	}
	var pick []bool
	if s.opts.ClassRate > 0 {
		pick = s.pickByClass(live)
	} else {
		n := int(s.tokens)
		if n >= len(live) {
			for _, r := range live {
				s.release(r, reach(r, prev, at))
			}
			s.readyQ = s.readyQ[:0]
			s.tokens -= float64(len(live))
			return
		}
		s.tokens -= float64(n)
		pick = pickRoundRobin(live, n)
	}
	rest := make([]readyAsk, 0, len(live))
	for i, r := range live {
		if pick[i] {
			s.release(r, reach(r, prev, at))
		} else {
			rest = append(rest, r)
		}
	}
	s.readyQ = rest
}

// refill adds the throughput of the time since the last cycle to the
// tokens, up to the burst.
func (s *sim) refill(at time.Duration) {
	if !s.tokensSet {
		s.tokens, s.classTokens, s.tokensSet = s.opts.SchedBurst, s.opts.ClassBurst, true
	}
	s.tokens = min(s.opts.SchedBurst, s.tokens+s.opts.SchedRate*(at-s.lastDispatch).Seconds())
	s.classTokens = min(s.opts.ClassBurst, s.classTokens+s.opts.ClassRate*(at-s.lastDispatch).Seconds())
	s.lastDispatch = at
}

// reach is when a ready ask let through at the cycle at reached the
// scheduler: when its latency ended if that was after the previous cycle
// prev (it did not wait for the throughput; the wait for this cycle is
// the scheduler's), else at (it waited for the throughput until now).
func reach(r readyAsk, prev, at time.Duration) time.Duration {
	if r.at > prev {
		return r.at
	}
	return at
}

// release sends a ready ask to the scheduler; it reached it at at.
func (s *sim) release(r readyAsk, at time.Duration) {
	t := r.t
	t.held = false
	if _, ok := s.appJob[t.app]; !ok {
		t.app = s.app(t.job, t.user, t.tier)
	}
	s.queueAsk(t, max(at, r.at))
}

// pickRoundRobin chooses n of the asks: the first n in orderRoundRobin's
// order. It returns which asks, by index.
func pickRoundRobin(asks []readyAsk, n int) []bool {
	pick := make([]bool, len(asks))
	for _, i := range orderRoundRobin(asks)[:max(0, min(n, len(asks)))] {
		pick[i] = true
	}
	return pick
}

// orderRoundRobin orders the asks as the scheduler takes them: priorities
// from the highest, and within one, one ask per job in turn (jobs in the
// order of their first ready ask). It returns the asks' indexes.
func orderRoundRobin(asks []readyAsk) []int {
	// an ask's place: its priority, then its turn (how many asks of its
	// job and priority come before it), then its job's first ask
	type jobPrio struct {
		job  int64
		prio int32
	}
	type seen struct{ first, n int }
	turn := make([]int, len(asks))
	rank := make([]int, len(asks))
	jobs := make(map[jobPrio]*seen)
	for i, r := range asks {
		k := jobPrio{r.t.job, r.t.prio}
		j := jobs[k]
		if j == nil {
			j = &seen{first: i}
			jobs[k] = j
		}
		turn[i], rank[i] = j.n, j.first
		j.n++
	}
	order := make([]int, len(asks))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(asks[b].t.prio, asks[a].t.prio); c != 0 {
			return c
		}
		if c := cmp.Compare(turn[a], turn[b]); c != 0 {
			return c
		}
		return cmp.Compare(rank[a], rank[b])
	})
	return order
}
