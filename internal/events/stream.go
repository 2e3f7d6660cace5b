package events

import (
	"errors"
	"time"
)

// subscription is one open stream's cursor into the ring: the ID of the
// next record to send. The stream reads the records from the ring itself,
// in batches, so a burst costs no copy per stream and a reader that keeps
// up is never cut by it. The ring never waits for a stream: one that falls
// more than limit records behind, or whose next record the ring has
// overwritten, is cut off.
type subscription struct {
	host    string
	created time.Time
	limit   uint64
	// wake holds a token when records arrived since the stream last read.
	wake chan struct{}
	// done is closed when the ring drops the subscription (slow consumer
	// or ring closed); the fields below are guarded by the ring's lock.
	done   chan struct{}
	next   uint64
	slow   bool
	closed bool
}

// notify tells the stream that record id arrived, or cuts it off when it
// is now more than limit records behind (false). The ring's lock is held.
func (s *subscription) notify(id uint64) bool {
	if id+1-s.next > s.limit {
		s.slow = true
		s.close()
		return false
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return true
}

func (s *subscription) close() {
	if !s.closed {
		s.closed = true
		close(s.done)
	}
}

// Errors of subscribe, reported to the client as 503.
var (
	errTooManyStreams = errors.New("too many event streams")
	errTooManyForHost = errors.New("too many event streams from this host")
	errRingClosed     = errors.New("event service is shutting down")
)

// subscribe opens a subscription for host, within the stream limits, that
// may fall at most limit records behind, and returns it with the newest
// past records (at most past).
func (r *Ring) subscribe(host string, past, limit, maxTotal, maxPerHost int, now time.Time) (*subscription, []Entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.subs == nil {
		return nil, nil, errRingClosed
	}
	if len(r.subs) >= maxTotal {
		return nil, nil, errTooManyStreams
	}
	perHost := 0
	for s := range r.subs {
		if s.host == host {
			perHost++
		}
	}
	if perHost >= maxPerHost {
		return nil, nil, errTooManyForHost
	}
	s := &subscription{host: host, created: now, limit: uint64(max(limit, 1)), next: r.next,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	r.subs[s] = struct{}{}
	return s, r.newest(past), nil
}

// unsubscribe removes s; it reports whether the ring had cut s off as a
// slow consumer.
func (r *Ring) unsubscribe(s *subscription) (slow bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.subs, s)
	s.close()
	return s.slow
}

// read returns, oldest first, at most max records s has not had yet and
// advances its cursor; slow reports that s was cut off (or that the ring
// overwrote records it had not read, which cuts it off now).
func (r *Ring) read(s *subscription, max int) (out []Entry, slow bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.slow {
		return nil, true
	}
	lowest, _ := r.bounds()
	if r.n > 0 && s.next < lowest {
		s.slow = true
		s.close()
		delete(r.subs, s)
		return nil, true
	}
	k := int(min(uint64(max), r.next-s.next))
	if k <= 0 {
		return nil, false
	}
	skip := int(s.next - lowest)
	out = make([]Entry, k)
	for i := range k {
		out[i] = r.buf[(r.start+skip+i)%len(r.buf)].entry()
	}
	s.next += uint64(k)
	return out, false
}

func (r *Ring) slow(s *subscription) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return s.slow
}

// closeStreams ends every subscription and refuses new ones.
func (r *Ring) closeStreams() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for s := range r.subs {
		s.close()
	}
	r.subs = nil
}

// StreamInfo describes an open stream (state dump: eventStreams).
type StreamInfo struct {
	Name      string
	CreatedAt time.Time
}

func (r *Ring) streams() []StreamInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]StreamInfo, 0, len(r.subs))
	for s := range r.subs {
		out = append(out, StreamInfo{Name: s.host, CreatedAt: s.created})
	}
	return out
}
