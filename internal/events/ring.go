// Package events owns the scheduler's event history for REST clients: a
// bounded ring buffer of event records with increasing IDs, the batch API
// (/ws/v1/events/batch) and the streaming API (/ws/v1/events/stream) over
// it (reference §5 and §7).
//
// Appending never blocks the scheduler: it takes a short lock, overwrites
// the oldest record when the ring is full (counting the drop), and wakes
// each open stream without waiting; streams read the ring themselves, in
// batches, and a stream too far behind is disconnected instead.
package events

import (
	"sync"

	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Defaults of the extra configuration keys (reference §1.11).
const (
	DefaultRingCapacity      = 100000
	DefaultMaxStreams        = 100
	DefaultMaxStreamsPerHost = 15
	DefaultRESTResponseSize  = 10000
	// StreamBuffer is how many records a stream may fall behind before it
	// is disconnected as a slow consumer. Streams read the ring itself, so
	// this costs no memory per stream; it is half the default ring, room
	// for the events of a scheduling pass at tens of thousands of
	// decisions a second.
	StreamBuffer = 50000
)

// Entry is a stored record with its ID.
type Entry struct {
	ID     uint64
	Record event.Record
	// Registry names the record's resource vector: the registry of the
	// RM that made it (nil for the service's own).
	Registry *resource.Registry
}

// Ring is the bounded event history. IDs start at 0 and increase by one
// per record; they are never reused, also across resizes.
type Ring struct {
	mu      sync.Mutex
	buf     []slot // grows up to capacity as records arrive
	limit   int    // the capacity
	start   int    // index of the oldest entry
	n       int
	next    uint64 // ID of the next record
	dropped uint64
	subs    map[*subscription]struct{}
}

// NewRing returns an empty ring holding at most capacity records
// (DefaultRingCapacity when capacity <= 0).
func NewRing(capacity int) *Ring {
	if capacity <= 0 {
		capacity = DefaultRingCapacity
	}
	return &Ring{buf: make([]slot, min(capacity, initialSize)), limit: capacity, subs: map[*subscription]struct{}{}}
}

// initialSize is the ring's first allocation; it doubles up to the
// capacity, so a large capacity costs memory only once it is used.
const initialSize = 1024

// Append stores a record, dropping the oldest when the ring is full, and
// offers it to every open stream. It never blocks on a reader.
func (r *Ring) Append(rec event.Record) { r.AppendFrom(nil, &rec) }

// AppendFrom is Append for a record whose vector reg names; it copies
// *rec into its slot.
func (r *Ring) AppendFrom(reg *resource.Registry, rec *event.Record) {
	r.mu.Lock()
	id := r.next
	r.next++
	if r.n == len(r.buf) && r.n < r.limit {
		r.regrow(min(2*len(r.buf), r.limit))
	}
	var e *slot
	if r.n == len(r.buf) {
		e = &r.buf[r.start]
		r.start++
		if r.start == len(r.buf) {
			r.start = 0
		}
		r.dropped++
	} else {
		i := r.start + r.n // < 2*len(r.buf): no division on this path
		if i >= len(r.buf) {
			i -= len(r.buf)
		}
		e = &r.buf[i]
		r.n++
	}
	e.set(id, reg, rec)
	if len(r.subs) > 0 {
		for s := range r.subs {
			if !s.notify(id) {
				delete(r.subs, s)
			}
		}
	}
	r.mu.Unlock()
}

// Capacity is the most records the ring holds.
func (r *Ring) Capacity() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.limit
}

// regrow moves the records, oldest first, to a buffer of size n >= r.n;
// r.mu is held.
func (r *Ring) regrow(n int) {
	buf := make([]slot, n)
	for i := range r.n {
		buf[i] = r.buf[(r.start+i)%len(r.buf)]
	}
	r.buf, r.start = buf, 0
}

// Len is the number of records held.
func (r *Ring) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// Dropped is how many records were overwritten (or cut by a resize)
// before anyone could have read them from the ring.
func (r *Ring) Dropped() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// Resize changes the capacity in place, keeping the newest records.
func (r *Ring) Resize(capacity int) {
	if capacity <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if capacity == r.limit {
		return
	}
	if keep := min(r.n, capacity); keep < r.n {
		r.dropped += uint64(r.n - keep)
		r.start = (r.start + r.n - keep) % len(r.buf)
		r.n = keep
	}
	r.limit = capacity
	r.regrow(max(r.n, min(capacity, initialSize)))
}

// bounds returns the lowest and highest stored IDs (both 0 when empty);
// r.mu is held.
func (r *Ring) bounds() (lowest, highest uint64) {
	if r.n == 0 {
		return 0, 0
	}
	return r.buf[r.start].id, r.next - 1
}

// Range returns at most count records with IDs from start on (from the
// lowest stored ID when start is older), oldest first, with the lowest and
// highest IDs stored.
func (r *Ring) Range(start uint64, count int) (lowest, highest uint64, out []Entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lowest, highest = r.bounds()
	if r.n == 0 || count <= 0 || start > highest {
		return lowest, highest, nil
	}
	skip := 0
	if start > lowest {
		skip = int(start - lowest)
	}
	k := min(count, r.n-skip)
	out = make([]Entry, k)
	for i := range k {
		out[i] = r.buf[(r.start+skip+i)%len(r.buf)].entry()
	}
	return lowest, highest, out
}

// newest returns the newest count records, oldest first; r.mu is held.
func (r *Ring) newest(count int) []Entry {
	k := min(max(count, 0), r.n)
	out := make([]Entry, k)
	for i := range k {
		out[i] = r.buf[(r.start+r.n-k+i)%len(r.buf)].entry()
	}
	return out
}
