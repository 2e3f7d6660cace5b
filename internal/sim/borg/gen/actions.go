package gen

import "github.com/paddock-sched/paddock/internal/sim/borg"

type actKind uint8

const (
	actArrival       actKind = iota // the next job arrives
	actEnable                       // the batch scheduler enables a queued job
	actPlace                        // a pending task tries to find a machine
	actEnd                          // a task's run ends (typ says how)
	actResubmit                     // an evicted or failed task is submitted again
	actKillPending                  // a task is cancelled if it still waits
	actMachineDown                  // a random machine is removed
	actMachineUp                    // machine m comes back
	actMachineUpdate                // a random machine is updated
)

// action is something planned to happen at trace time at (µs). Actions of
// a task carry the task's generation when planned; a later generation
// makes them stale.
type action struct {
	at   int64
	seq  uint64
	kind actKind
	typ  borg.EventType
	m    int32
	gen  uint32
	t    *task
	j    *job
}

// actHeap is a binary min-heap of actions ordered by time, then by the
// order they were planned, so equal times resolve deterministically.
type actHeap []action

func (h actHeap) less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}

func (h *actHeap) push(a action) {
	*h = append(*h, a)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *actHeap) pop() action {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = action{}
	s = s[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && s.less(l, m) {
			m = l
		}
		if r < n && s.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}
