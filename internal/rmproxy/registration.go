package rmproxy

import (
	"errors"
	"fmt"
	"time"
)

// DefaultMaxRMs is how many resource managers may be registered at once
// unless SetRMLimit says otherwise: far more than any deployment runs (one
// per cluster), few enough that registrations cannot exhaust memory.
const DefaultMaxRMs = 100

// DefaultRMExpiry is how long a registration of a remote RM may go without
// a connection while it holds no nodes and no applications before it
// expires (SetRMExpiry): long enough for a real RM to open its streams or
// reconnect, short enough that registrations left by a client that went
// away free their places under the limit within a minute.
const DefaultRMExpiry = 60 * time.Second

var (
	// ErrTooManyRMs refuses a registration of a new RM ID when the limit
	// of registered RMs is reached (gRPC ResourceExhausted).
	ErrTooManyRMs = errors.New("too many resource managers")
	// ErrRMNotAllowed refuses a registration of an RM ID that is not on
	// the allow-list (gRPC PermissionDenied).
	ErrRMNotAllowed = errors.New("resource manager not allowed")
)

// Remote is implemented by the callback of an RM that reaches the
// scheduler over a connection (the gRPC server's registrations). Only such
// a registration expires: an in-process RM lives as long as the process.
type Remote interface {
	// Connected reports whether the RM has a live connection (a stream
	// open) now. Called on the service goroutine.
	Connected() bool
	// Expired tells that the registration expired and the scheduler has
	// forgotten the RM: its streams end and it must register again.
	// Called on the service goroutine; it must not call the scheduler.
	Expired()
}

// admission is who may register. Owned by the service goroutine.
type admission struct {
	max     int             // 0: DefaultMaxRMs; negative: unbounded
	allowed map[string]bool // nil: any valid ID
	// expiry is how long an idle remote registration lasts (0:
	// DefaultRMExpiry; negative: for ever); idle holds since when each
	// remote RM has been idle (no connection, no nodes, no applications),
	// swept when the last sweep was made
	expiry time.Duration
	idle   map[string]time.Time
	swept  time.Time
}

func (a *admission) lifetime() time.Duration {
	if a.expiry == 0 {
		return DefaultRMExpiry
	}
	return a.expiry
}

func (a *admission) limit() int {
	if a.max == 0 {
		return DefaultMaxRMs
	}
	return a.max
}

// admits checks a registration against the allow-list and the limit; an
// RM registering again always fits. At the limit, registrations due to
// expire go first. The engine checks the ID itself.
func (s *Service) admits(rmID string, now time.Time) error {
	if s.admit.allowed != nil && !s.admit.allowed[rmID] {
		return fmt.Errorf("register %q: %w: the scheduler accepts only the IDs it was given (serve -allow-rms)", rmID, ErrRMNotAllowed)
	}
	if _, again := s.eng.RM(rmID); again {
		return nil
	}
	n := s.admit.limit()
	if n > 0 && s.eng.RMCount() >= n {
		s.expireIdle(now)
	}
	if have := s.eng.RMCount(); n > 0 && have >= n {
		return fmt.Errorf("register %q: %w: %d are registered, the limit is %d (serve -max-rms); registrations without a connection, nodes or applications expire after %s",
			rmID, ErrTooManyRMs, have, n, s.admit.lifetime())
	}
	return nil
}

// noteIdle starts (or restarts) the idle time of a registration made now:
// a remote RM is idle until it opens a stream.
func (s *Service) noteIdle(rmID string, cb any, now time.Time) {
	delete(s.admit.idle, rmID)
	if r, ok := cb.(Remote); ok && !r.Connected() {
		if s.admit.idle == nil {
			s.admit.idle = map[string]time.Time{}
		}
		s.admit.idle[rmID] = now
	}
}

// sweepIdle expires idle registrations, at most once per TickInterval of
// the scheduler's clock. Owner only.
func (s *Service) sweepIdle(now time.Time) {
	if now.Sub(s.admit.swept) < TickInterval {
		return
	}
	s.expireIdle(now)
}

// expireIdle notes which remote registrations are idle (no connection, no
// nodes, no applications) and forgets those idle for the expiry time.
func (s *Service) expireIdle(now time.Time) {
	s.admit.swept = now
	life := s.admit.lifetime()
	if life < 0 {
		return
	}
	var due []string
	for _, rm := range s.eng.Registered() {
		r, remote := s.callbacks[rm.ID].(Remote)
		if !remote || r.Connected() || !rm.Empty() {
			delete(s.admit.idle, rm.ID)
			continue
		}
		since, ok := s.admit.idle[rm.ID]
		if !ok {
			if s.admit.idle == nil {
				s.admit.idle = map[string]time.Time{}
			}
			s.admit.idle[rm.ID] = now
			continue
		}
		if now.Sub(since) >= life {
			due = append(due, rm.ID) // not while ranging over Registered
		}
	}
	for _, id := range due {
		s.expire(id, life)
	}
}

// expire forgets RM rmID, idle for life, and tells its callback.
func (s *Service) expire(rmID string, life time.Duration) {
	cb := s.callbacks[rmID]
	s.eng.Unregister(rmID)
	delete(s.admit.idle, rmID)
	delete(s.callbacks, rmID)
	delete(s.pending, rmID)
	delete(s.events, rmID)
	delete(s.blind, rmID)
	delete(s.snaps.info, rmID)
	delete(s.snaps.rejected, rmID)
	if c := s.couriers[rmID]; c != nil {
		c.retire()
		delete(s.couriers, rmID)
	}
	s.mu.Lock()
	delete(s.rms, rmID)
	delete(s.choked, rmID)
	s.mu.Unlock()
	s.changedSync()
	if l := s.hooks.Logger; l != nil {
		l.Info("resource manager registration expired: no connection, nodes or applications", "rmID", rmID, "after", life)
	}
	if r, ok := cb.(Remote); ok {
		r.Expired()
	}
}

// SetRMExpiry sets how long a registration of a remote RM (one whose
// callback is a Remote) may have no connection while it holds no nodes and
// no applications before the scheduler forgets it: 0 means
// DefaultRMExpiry, negative never. It frees the places such registrations
// take under the RM limit (a client that registered and went away).
func (s *Service) SetRMExpiry(d time.Duration) {
	_ = s.call(func(time.Time) error { s.admit.expiry = d; return nil })
}

// SetRMLimit bounds the number of registered resource managers: a
// registration of a new ID past it fails with ErrTooManyRMs; 0 means
// DefaultMaxRMs, negative no bound. RMs already registered stay.
func (s *Service) SetRMLimit(n int) {
	_ = s.call(func(time.Time) error { s.admit.max = n; return nil })
}

// RMLimit is the bound on registered resource managers (negative: none).
func (s *Service) RMLimit() int {
	var n int
	_ = s.call(func(time.Time) error { n = s.admit.limit(); return nil })
	return n
}

// SetAllowedRMs limits registration to the given RM IDs (exact, case
// sensitive); any other fails with ErrRMNotAllowed. Nil or empty allows
// every valid ID. RMs already registered stay.
func (s *Service) SetAllowedRMs(ids []string) {
	var allowed map[string]bool
	if len(ids) > 0 {
		allowed = make(map[string]bool, len(ids))
		for _, id := range ids {
			allowed[id] = true
		}
	}
	_ = s.call(func(time.Time) error { s.admit.allowed = allowed; return nil })
}

// SetTypeLimit sets how many resource types, vcore and memory included,
// each resource manager registered from now on may use (2 to
// resource.MaxTypes, 0 for resource.MaxTypes). Every RM has its own
// registry of type names, so one RM's types never count against another's;
// a node, application or allocation that would take an RM past its limit is
// rejected with a reason and changes nothing.
func (s *Service) SetTypeLimit(n int) {
	_ = s.call(func(time.Time) error { s.eng.SetTypeLimit(n); return nil })
}
