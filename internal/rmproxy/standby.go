package rmproxy

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/core/partition"
)

// A standby service takes in everything its RMs send (registrations,
// configuration, nodes, applications, asks, allocations, releases) and
// keeps the whole state, but decides nothing: no engine step runs (no
// scheduling pass, no timer: placeholder and gang timeouts, reservations,
// preemption), and its RMs hear nothing that would make them act on their
// cluster. What applying their input produced for them is held in the
// engine's outboxes, except the answers to node registrations (accepted
// and rejected nodes), which are delivered: an RM may wait for them
// before it goes on (the Kubernetes shim does, at start-up), and they
// only settle its bookkeeping. Event records for the RMs are dropped;
// the REST event history still keeps them.
//
// Activate makes the service lead: what was held is delivered first, and
// a scheduling pass of every partition runs at once. Fence makes it a
// standby again at once, from any goroutine, without waiting for the
// service goroutine: the gate is one atomic flag, read by the engine's
// node checks before every placement and by the couriers before every
// delivery. A delivery the gate stops that carries decisions (new
// allocations, releases, application changes) is dropped: the state now
// holds decisions its RM never heard of, and the service refuses to lead
// again (ErrDiverged). A leader that loses its lease is restarted, as
// kube-scheduler is, and learns the new leader's decisions from its RM.
//
// LeadUntil bounds a leader in time: the gate also stays closed while its
// deadline has passed (a lapse), and a later deadline (the lease renewed)
// opens it again. A lapse holds what the service decided and has not
// delivered, as a standby holds its outcomes, and drops nothing that has
// not left the outboxes; a fence during the lapse makes those held
// decisions a divergence, a renewal delivers them.

// ErrDiverged is Activate's refusal after a fence dropped decisions the
// RM never heard of: the state is no longer the RM's, so the service must
// be started afresh before it leads.
var ErrDiverged = errors.New("scheduler fenced while its decisions were undelivered; restart it before it leads again")

// errStandby is the node checks' answer while the service is a standby
// or its lease deadline has passed. It is not a veto of the node: the pass
// ends at once and leaves the asks as they were.
var errStandby = fmt.Errorf("%w: the scheduler is a standby, it places nothing", partition.ErrRMUnavailable)

// leadGate is the service's leadership: set to standby by Fence, cleared
// by Activate, and closed while the lease deadline has passed.
type leadGate struct {
	standby atomic.Bool
	// diverged is set when the gate stopped a delivery with decisions, or
	// found decisions held while fenced; it keeps the gate closed
	diverged atomic.Bool
	// dropped counts the SI items of the stopped deliveries
	dropped atomic.Int64
	// fences counts Fence calls, so that an activation under way sees
	// one made meanwhile
	fences atomic.Uint64
	// until, when not 0, is the time (unix nanoseconds) from which the
	// gate is closed: the end of the lease as the leader last renewed it
	// (LeadUntil)
	until atomic.Int64
	// resumed is set when a renewal opened the gate after a lapse: the
	// service goroutine then asks every partition for a pass
	resumed atomic.Bool
}

// closed reports whether the gate stops decisions: a standby, a diverged
// service, or a lease deadline passed; a nil gate never does.
func (g *leadGate) closed() bool {
	if g == nil {
		return false
	}
	if g.standby.Load() || g.diverged.Load() {
		return true
	}
	u := g.until.Load() // the clock is read only under a lease
	return u != 0 && time.Now().UnixNano() >= u
}

// lapsed reports whether the lease deadline has passed at now.
func (g *leadGate) lapsed(now time.Time) bool {
	u := g.until.Load()
	return u != 0 && now.UnixNano() >= u
}

// fenced reports whether the gate of p is closed, and then drops what
// p has not sent yet, noting the decisions among it.
func (p *parcel) fenced() bool {
	g := p.gate
	if !g.closed() {
		return false
	}
	if n := p.items(); n > 0 {
		g.dropped.Add(n)
		g.diverged.Store(true)
	}
	*p = parcel{cb: p.cb, n: p.n, gate: g}
	return true
}

// Standby reports whether the service is a standby.
func (s *Service) Standby() bool { return s.lead.closed() }

// Fence makes the service a standby: from the moment it returns, no
// placement is made (the node checks refuse every node) and nothing but
// node answers reaches an RM (each courier checks before each delivery).
// It does not wait for the service goroutine: a pass running goes on to
// its end placing nothing. Safe from any goroutine, and while a callback
// runs.
func (s *Service) Fence() {
	s.lead.standby.Store(true)
	s.lead.fences.Add(1)
}

// LeadUntil bounds the leadership in time: from t on the service decides
// and delivers nothing, as when fenced, until a later call moves t past
// the present again. A leader calls it after every renewal of its lease,
// with the renewal's start plus a deadline shorter than the lease, so that
// it stops deciding before any other replica can take the lease over,
// even when the renewals stop coming (the process starved, the lease
// service unreachable). A renewal that comes after the deadline passed
// proves that no other replica took the lease meanwhile, so it resumes
// the leader: what it decided and held is delivered, and its partitions
// run a pass. The zero time removes the bound; after a lapse it fences
// instead (only a renewal resumes a lapsed leader).
func (s *Service) LeadUntil(t time.Time) {
	now := time.Now()
	lapsed := s.lead.lapsed(now)
	if t.IsZero() {
		if lapsed {
			s.Fence()
		}
		s.lead.until.Store(0)
		return
	}
	s.lead.until.Store(t.UnixNano())
	if lapsed && t.After(now) {
		s.lead.resumed.Store(true)
		s.poke()
	}
}

// Diverged reports whether a fence dropped or stranded decisions the RMs
// never heard of: the service then never leads again (ErrDiverged) and
// must be started afresh.
func (s *Service) Diverged() bool { return s.lead.diverged.Load() }

// resume asks every partition for a pass after a lapse ended (service
// goroutine).
func (s *Service) resume() {
	if !s.lead.resumed.Swap(false) {
		return
	}
	for _, rm := range s.eng.Registered() {
		rm.PartitionsDo((*partition.Partition).Reconsider)
	}
}

// ErrFencedMeanwhile is Activate's refusal when Fence was called after
// Activate was: the later call wins, and the service stays a standby.
var ErrFencedMeanwhile = errors.New("scheduler fenced while it was being activated; it stays a standby")

// Activate makes a standby lead: the outcomes held while it was a standby
// are delivered, then a scheduling pass of every partition runs at once
// (on a manual service, at the next Cycle). It fails with ErrDiverged
// after a fence dropped decisions, and with ErrFencedMeanwhile when Fence
// was called while it waited for the service goroutine, and then changes
// nothing. Activating a leader does nothing.
func (s *Service) Activate() error {
	fences := s.lead.fences.Load()
	return s.call(func(time.Time) error {
		if s.lead.standby.Load() && s.heldDecisions() {
			s.lead.diverged.Store(true)
		}
		if s.lead.diverged.Load() {
			return ErrDiverged
		}
		if s.lead.fences.Load() != fences {
			return ErrFencedMeanwhile
		}
		if !s.lead.standby.Load() {
			return nil
		}
		s.lead.standby.Store(false)
		if s.lead.fences.Load() != fences {
			// a Fence between the look and the store: it wins
			s.lead.standby.Store(true)
			return ErrFencedMeanwhile
		}
		for _, rm := range s.eng.Registered() {
			rm.PartitionsDo((*partition.Partition).Reconsider)
		}
		return nil
	})
}

// FencedItems returns how many SI items fences dropped: decisions made
// while the service led that its RMs never heard of.
func (s *Service) FencedItems() int64 { return s.lead.dropped.Load() }

// hold is deliverTo for a standby, or a leader whose lease deadline has
// passed: p gets the RM's node answers, which leave the outboxes;
// everything else stays there for Activate or the renewal (answers to the
// RM's input: applications accepted or rejected, its own allocations
// confirmed, its releases echoed; and, after a lapse, what the leader
// decided before it), and the RM's event records are dropped. Decisions
// held while fenced are never to be delivered: the service is diverged.
func (s *Service) hold(rm *engine.RM, p *parcel) {
	if b := s.events[rm.ID]; b != nil {
		b.recs = b.recs[:0]
	}
	if s.lead.standby.Load() && s.heldFor(rm) {
		// a pass that ran across the fence placed, replaced or
		// preempted: never delivered, and never to be
		s.lead.diverged.Store(true)
	}
	var accepted []*si.AcceptedNode
	var rejected []*si.RejectedNode
	take := func(o *partition.Outbox) {
		for _, n := range o.AcceptedNodes {
			accepted = append(accepted, &si.AcceptedNode{NodeID: n})
		}
		for _, r := range o.RejectedNodes {
			rejected = append(rejected, &si.RejectedNode{NodeID: r.ID, Reason: r.Reason})
		}
		o.AcceptedNodes = o.AcceptedNodes[:0]
		o.RejectedNodes = o.RejectedNodes[:0]
	}
	if o := s.pending[rm.ID]; o != nil {
		take(o)
	}
	for _, o := range rm.Outboxes(nil) {
		take(o)
	}
	if len(accepted)+len(rejected) > 0 {
		p.nodes = &si.NodeResponse{Accepted: accepted, Rejected: rejected}
	}
}

// heldDecisions reports whether any RM's outboxes hold a decision of the
// scheduler's own (service goroutine).
func (s *Service) heldDecisions() bool {
	for _, rm := range s.eng.Registered() {
		if s.heldFor(rm) {
			return true
		}
	}
	return false
}

// heldFor reports whether rm's outboxes hold a decision of the
// scheduler's own.
func (s *Service) heldFor(rm *engine.RM) bool {
	if o := s.pending[rm.ID]; o != nil && decided(o) {
		return true
	}
	for _, o := range rm.Outboxes(nil) {
		if decided(o) {
			return true
		}
	}
	return false
}

// decided reports whether o holds a decision of the scheduler's own,
// rather than answers to the RM's input: an allocation it placed (not one
// the RM placed, nor a real allocation in a placeholder's place, which
// answers the RM's confirmation of the replacement), or a release it
// initiated.
func decided(o *partition.Outbox) bool {
	for _, x := range o.Allocations {
		if !x.Forced && !x.PlaceholderUsed {
			return true
		}
	}
	for _, r := range o.Released {
		switch r.Termination {
		case partition.PreemptedByScheduler, partition.PlaceholderReplaced, partition.Timeout:
			return true
		}
	}
	return false
}
