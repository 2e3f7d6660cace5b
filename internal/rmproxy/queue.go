package rmproxy

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// The SI service queue holds the requests RMs sent that the service
// goroutine has not taken yet. It is bounded in SI items (nodes,
// applications, asks, allocations and releases) so that an RM sending
// faster than the scheduler applies cannot grow it without limit: a call
// that finds it full waits for the goroutine to take the queue, up to a
// bound, and then fails with ErrBusy. Over gRPC the waiting stream stops
// reading, so flow control slows the RM down. Callbacks run on the service
// goroutine, the one that takes the queue: an in-process RM that calls
// UpdateAllocation (or the others) from inside a callback while the queue
// is full waits the whole wait and gets ErrBusy, so it should hand such
// calls to another goroutine (gRPC sessions already do).
const (
	// DefaultMaxQueued is the default limit of SI items queued.
	DefaultMaxQueued = 50_000
	// DefaultQueueWait is how long a call waits for room by default.
	DefaultQueueWait = 30 * time.Second
)

// ErrBusy is returned by UpdateNode, UpdateApplication and
// UpdateAllocation when the service queue stayed full for the whole wait.
var ErrBusy = errors.New("scheduler service queue is full")

// queueState is the bound of the service queue; the fields up to room are
// guarded by Service.mu.
type queueState struct {
	items int // SI items in the inbox
	// byRM counts them per RM: an RM with none queued gets a request in
	// past the limit (admitLocked)
	byRM map[string]int
	max  int // 0: unbounded
	wait time.Duration
	// room, when not nil, is closed when the inbox is next taken.
	room chan struct{}

	waits, refused atomic.Uint64
}

// QueueStats describe the service queue for metrics.
type QueueStats struct {
	// Items are the SI items queued, Limit their bound (0: none).
	Items, Limit int
	// Waits counts the calls that found the queue full and waited,
	// Refused those that gave up with ErrBusy.
	Waits, Refused uint64
}

// SetQueueLimit bounds the service queue at limit SI items (0 or negative:
// unbounded) and sets how long a call waits for room before ErrBusy. A
// request is always accepted into an empty queue, however large. Services
// made by NewManual are never bounded (Cycle takes the queue).
func (s *Service) SetQueueLimit(limit int, wait time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue.max, s.queue.wait = max(limit, 0), wait
}

// QueueStats returns the state of the service queue.
func (s *Service) QueueStats() QueueStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return QueueStats{Items: s.queue.items, Limit: s.queue.max, Waits: s.queue.waits.Load(), Refused: s.queue.refused.Load()}
}

// admitLocked waits, with s.mu held (and released while waiting), until n
// more items of RM rmID ("" for none) fit in the queue. It returns
// ErrStopped or ErrBusy when they never do. An RM with nothing queued
// gets its request in even past the limit, so that one RM keeping the
// queue full does not make the others wait for room (or fail): the queue
// then holds at most one request per RM beyond its limit.
func (s *Service) admitLocked(rmID string, n int) error {
	var timer *time.Timer
	for {
		if s.stopped {
			return ErrStopped
		}
		q := &s.queue
		if n == 0 || q.max == 0 || s.manual || q.items == 0 || q.items+n <= q.max || (rmID != "" && q.byRM[rmID] == 0) {
			return nil
		}
		if timer == nil {
			q.waits.Add(1)
			timer = time.NewTimer(q.wait)
			defer timer.Stop()
		}
		if q.room == nil {
			q.room = make(chan struct{})
		}
		room, items, limit := q.room, q.items, q.max
		s.mu.Unlock()
		select {
		case <-room:
		case <-timer.C:
			q.refused.Add(1)
			s.mu.Lock()
			return fmt.Errorf("%w: %d SI items wait, the limit is %d; retry later", ErrBusy, items, limit)
		case <-s.done:
		}
		s.mu.Lock()
	}
}

// takeLocked empties the inbox for the service goroutine (s.mu held) and
// wakes the calls waiting for room.
func (s *Service) takeLocked() []request {
	work := s.inbox
	s.inbox = nil
	s.queue.items = 0
	clear(s.queue.byRM)
	s.queued.Store(false)
	s.roomLocked()
	return work
}

// TakeItems is about the most SI items the goroutine takes from the queue
// in one round (at least one request): it applies them, runs a step and
// delivers, then takes the next, the requests of several RMs in turn
// (interleave). A request that comes during a flood of another RM so
// waits for a round, not for the whole flood queued before it.
const TakeItems = 16384

// takeSomeLocked takes from the inbox (s.mu held) the requests of a round,
// in the order interleave gives: the whole inbox when it holds no more
// than TakeItems items, else its head, requests of TakeItems items or
// more (at least one). It wakes the calls waiting for room.
func (s *Service) takeSomeLocked() []request {
	q := &s.queue
	s.inbox = interleave(s.inbox)
	if q.items <= TakeItems {
		return s.takeLocked()
	}
	n, k := 0, 0
	for k < len(s.inbox) && (k == 0 || n < TakeItems) {
		r := s.inbox[k]
		n += r.items
		if r.rmID != "" {
			if q.byRM[r.rmID] -= r.items; q.byRM[r.rmID] <= 0 {
				delete(q.byRM, r.rmID)
			}
		}
		k++
	}
	work := slices.Clone(s.inbox[:k])
	s.inbox = slices.Delete(s.inbox, 0, k)
	q.items -= n
	s.queued.Store(len(s.inbox) > 0)
	s.roomLocked()
	return work
}

// roomLocked wakes the calls waiting for room (s.mu held).
func (s *Service) roomLocked() {
	if s.queue.room != nil {
		close(s.queue.room)
		s.queue.room = nil
	}
}

// request is one call queued for the service goroutine: a request of RM
// rmID, or a synchronous call (rmID "": registration, configuration,
// inspection).
type request struct {
	rmID  string
	items int // SI items, as counted against the queue's limit
	apply func(now time.Time)
}

// interleave orders the requests of several RMs taken from the inbox at
// once in turn, one request of each RM in the order they first appear,
// keeping each RM's own order: one RM's flood queued ahead of another
// RM's request no longer delays it by the whole flood. A synchronous call
// stays where it was, after everything queued before it and before
// everything queued after it. The requests of a single RM come back as
// they are.
func interleave(work []request) []request {
	first, mixed := "", false
	for _, r := range work {
		switch {
		case r.rmID == "":
		case first == "":
			first = r.rmID
		case r.rmID != first:
			mixed = true
		}
		if mixed {
			break
		}
	}
	if !mixed {
		return work
	}
	out := make([]request, 0, len(work))
	for start := 0; start < len(work); {
		end := start
		for end < len(work) && work[end].rmID != "" {
			end++
		}
		out = inTurn(out, work[start:end])
		if end < len(work) {
			out = append(out, work[end])
			end++
		}
		start = end
	}
	return out
}

// inTurn appends the requests of seg to out, one of each RM in turn.
func inTurn(out, seg []request) []request {
	var order []string
	byRM := map[string][]request{}
	for _, r := range seg {
		if _, ok := byRM[r.rmID]; !ok {
			order = append(order, r.rmID)
		}
		byRM[r.rmID] = append(byRM[r.rmID], r)
	}
	for left := len(seg); left > 0; {
		for _, id := range order {
			if q := byRM[id]; len(q) > 0 {
				out = append(out, q[0])
				byRM[id] = q[1:]
				left--
			}
		}
	}
	return out
}

// Items count the SI items of a request (at least 1).
func nodeItems(r *si.NodeRequest) int { return max(len(r.Nodes), 1) }

func appItems(r *si.ApplicationRequest) int { return max(len(r.New)+len(r.Remove), 1) }

func allocItems(r *si.AllocationRequest) int {
	n := len(r.Allocations)
	if r.Releases != nil {
		n += len(r.Releases.AllocationsToRelease)
	}
	return max(n, 1)
}
