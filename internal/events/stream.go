package events

import (
	"errors"
	"time"
)

// subscription is one open stream's share of the ring: a bounded queue of
// new records. The ring never waits for it; when the queue is full the
// subscription is cut off.
type subscription struct {
	ch      chan Entry
	host    string
	created time.Time
	// done is closed when the ring drops the subscription (slow consumer
	// or ring closed); the fields below are guarded by the ring's lock.
	done   chan struct{}
	slow   bool
	closed bool
}

// offer queues e without blocking; false means the queue was full and the
// subscription is now closed. The ring's lock is held.
func (s *subscription) offer(e Entry) bool {
	select {
	case s.ch <- e:
		return true
	default:
		s.slow = true
		s.close()
		return false
	}
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

// subscribe opens a subscription for host, within the stream limits, and
// returns it with the newest past records (at most past).
func (r *Ring) subscribe(host string, past, buffer, maxTotal, maxPerHost int, now time.Time) (*subscription, []Entry, error) {
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
	s := &subscription{ch: make(chan Entry, buffer), host: host, created: now, done: make(chan struct{})}
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
