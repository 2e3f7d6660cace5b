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

var (
	// ErrTooManyRMs refuses a registration of a new RM ID when the limit
	// of registered RMs is reached (gRPC ResourceExhausted).
	ErrTooManyRMs = errors.New("too many resource managers")
	// ErrRMNotAllowed refuses a registration of an RM ID that is not on
	// the allow-list (gRPC PermissionDenied).
	ErrRMNotAllowed = errors.New("resource manager not allowed")
)

// admission is who may register. Owned by the service goroutine.
type admission struct {
	max     int             // 0: DefaultMaxRMs; negative: unbounded
	allowed map[string]bool // nil: any valid ID
}

func (a *admission) limit() int {
	if a.max == 0 {
		return DefaultMaxRMs
	}
	return a.max
}

// admits checks a registration against the allow-list and the limit; an
// RM registering again always fits. The engine checks the ID itself.
func (s *Service) admits(rmID string) error {
	if s.admit.allowed != nil && !s.admit.allowed[rmID] {
		return fmt.Errorf("register %q: %w: the scheduler accepts only the IDs it was given (serve -allow-rms)", rmID, ErrRMNotAllowed)
	}
	if _, again := s.eng.RM(rmID); again {
		return nil
	}
	if n, have := s.admit.limit(), s.eng.RMCount(); n > 0 && have >= n {
		return fmt.Errorf("register %q: %w: %d are registered, the limit is %d (serve -max-rms)", rmID, ErrTooManyRMs, have, n)
	}
	return nil
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
