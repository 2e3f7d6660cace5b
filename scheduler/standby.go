package scheduler

import (
	"time"

	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// A hot standby is a second scheduler fed the same input as the leader,
// ready to lead at once. Started with Options.Standby, or made one by
// Deactivate, a scheduler applies everything its resource managers send
// (registrations, configuration, nodes, applications, asks, the
// allocations they already have, releases) to its state, but runs no
// scheduling pass and no timer (placeholder and gang timeouts,
// reservations, preemption), so it makes no decision. Its RMs hear only
// whether their nodes were accepted; everything else its input produced
// for them (applications accepted or rejected, their own allocations
// confirmed, their releases echoed) is held, and delivered first when it
// is activated. REST and View show the standby's state as any
// scheduler's.
//
// Leadership itself comes from outside: a Kubernetes Lease (deploy/ha
// does this for the YuniKorn shim), or any coordination service. The
// leader calls Deactivate as soon as it may have lost its lease, before
// another replica can acquire it; a new leader calls Activate once it
// holds it.

// ErrDiverged is Activate's refusal after a Deactivate stopped decisions
// already made from reaching the RM: the state holds them, the RM does
// not, so the scheduler must be started afresh (and fed by its RM again)
// before it leads.
var ErrDiverged = rmproxy.ErrDiverged

// ErrFencedMeanwhile is Activate's refusal when Deactivate was called
// while the activation waited for the scheduler's goroutine: the later
// call wins.
var ErrFencedMeanwhile = rmproxy.ErrFencedMeanwhile

// Activate makes a standby lead: the outcomes held while it was a
// standby are delivered, then a scheduling pass runs at once. It returns
// ErrDiverged, changing nothing, when an earlier Deactivate dropped
// decisions, and ErrFencedMeanwhile when a Deactivate came while it
// waited; activating a leader does nothing.
func (s *Scheduler) Activate() error { return s.srv.Service().Activate() }

// Deactivate makes the scheduler a standby (fencing): from the moment it
// returns, no placement is made and nothing but node answers reaches an
// RM; every delivery checks first, and a delivery in flight stops before
// its next callback. It does not wait for the scheduler's goroutine and
// is safe from any goroutine, a callback included.
func (s *Scheduler) Deactivate() { s.srv.Service().Fence() }

// Standby reports whether the scheduler is a standby.
func (s *Scheduler) Standby() bool { return s.srv.Service().Standby() }

// LeadUntil bounds the leadership in time: from t on the scheduler decides
// and delivers nothing, as after Deactivate, until a later call moves t
// past the present again; the zero time removes the bound. A leader calls
// it after each renewal of its lease with the renewal's start plus a renew
// deadline shorter than the lease, so that every delivery checks the
// lease's time as well as the flag, and a leader whose renewals stop
// (starved, cut off from the lease service) stops deciding by itself
// before another replica can take the lease over. A renewal that comes
// after the deadline passed resumes it: no other replica can have taken
// the lease meanwhile, so what it decided and held is delivered and a pass
// runs. Activate keeps the bound: set it first.
func (s *Scheduler) LeadUntil(t time.Time) { s.srv.Service().LeadUntil(t) }

// Diverged reports whether a Deactivate (or the loss of the lease after a
// lapse) stranded decisions the resource managers never heard of: the
// scheduler then never leads again (Activate returns ErrDiverged, and a
// renewal does not resume it), and must be started afresh. A leader that
// finds itself diverged while it still holds its lease gives the lease up.
func (s *Scheduler) Diverged() bool { return s.srv.Service().Diverged() }
