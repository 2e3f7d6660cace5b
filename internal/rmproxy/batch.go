package rmproxy

import "time"

// A scheduling pass places everything it can, which after a burst of asks
// takes a while; the RM should not wait for the whole pass to hear of the
// first allocation. The service goroutine (New; not NewManual, whose
// deliveries stay one per Cycle so that virtual-time drivers are
// deterministic) therefore delivers in batches while a pass runs: the pass
// calls back every partition.BatchCheck allocations, between two
// decisions, with every decision so far applied, and the service delivers
// the outboxes when BatchInterval has passed since the last delivery or
// MaxBatch allocations wait. Each batch is one callback per kind, in the
// usual order (Accepted, the allocations, then Running), and decisions
// keep their order. Intake is sliced the same way: while applying a large
// inbox the goroutine runs a pass after every IntakeSlice of work (between
// two requests, or two asks of a large one), as if the rest of the asks
// had arrived a moment later; the first slice of a burst (the goroutine
// delivered nothing for an IntakeSlice before it) is FirstSlice long, so
// the RM hears of its first allocations a fraction of a millisecond after
// the burst began.
const (
	// BatchInterval is the longest the RM waits for decided allocations
	// while a pass runs.
	BatchInterval = time.Millisecond
	// MaxBatch is about the most allocations delivered in one callback
	// while a pass runs.
	MaxBatch = 1024
	// IntakeSlice is how long the goroutine applies queued requests
	// before it runs a pass on what it has taken in.
	IntakeSlice = time.Millisecond
	// FirstSlice is the first slice of intake after a quiet IntakeSlice:
	// one pass more per burst, on a tenth of a slice's asks.
	FirstSlice = 100 * time.Microsecond
	// PassSlice is how long a pass runs before it gives way to requests
	// waiting to be taken in and to other RMs' partitions with work
	// (engine.SetSlice): the goroutine takes the requests in, runs the
	// other partitions' passes and then goes on with it. Without it, an
	// ask of one RM waited for the whole of another RM's pass after a
	// large burst (1.5 s at 300,000 asks), and so did every request, a
	// release or a new node included.
	PassSlice = 5 * time.Millisecond
)

// batching is the state of the deliveries made while a pass runs (owned
// by the service goroutine).
type batching struct {
	now      time.Time // the time of the step running
	last     time.Time // wall clock of the last delivery
	checks   int       // batch calls since the last delivery
	maxCheck int       // MaxBatch in batch calls
	// intake is set while the goroutine applies queued requests (which
	// it may cut, see cut), start is when the slice began; ahead is set
	// while requests taken in wait behind the one applied
	intake bool
	ahead  bool
	start  time.Time
}

// batch is the engine's call between two decisions of a pass (SetBatch):
// it delivers what the pass decided so far when the RM has waited long
// enough or the batch is full. Every decision so far is applied, and the
// generation moves first, so an RM that asks for a snapshot after hearing
// of an allocation gets one built after it.
func (s *Service) batch() {
	b := &s.batching
	b.checks++
	if b.checks < b.maxCheck && time.Since(b.last) < BatchInterval {
		return
	}
	s.afterStep(0, 1)
	s.deliver(b.now, false)
}

// settle delivers what the engine decided so far, before the engine asks
// RM rmID (its courier c) about a node (Predicates, PreemptionPredicates),
// when that RM has allocations or releases it has not heard of: it
// answers from its own view of the nodes, which must hold every pod
// placed or taken away before (the Kubernetes shim checks required
// inter-pod anti-affinity and host ports against the pods it assumed on
// hearing of their allocations; asked before hearing, it let pods that
// exclude each other onto one node). The call
// comes between two decisions of a pass, with every decision so far
// applied, as batch's. A manual service delivers once per Cycle only; the
// caller leaves out an RM that said its answers do not depend on
// allocations (paddock.predicates.seeAllocations false), which keeps its
// batches.
//
// The RM has heard of them once its courier made the calls: settle waits
// for that (courier.go), and reports whether it came. It does not when
// a callback of the RM stalled: the service then pauses the RM.
func (s *Service) settle(rmID string, c *courier) bool {
	if s.manual {
		return true
	}
	s.handOver(rmID)
	if c == nil || c.await() {
		return true
	}
	s.pause(rmID, c)
	return false
}

// undelivered reports whether RM rmID has placements or releases it has
// not been sent.
func (s *Service) undelivered(rmID string) bool {
	if rm, ok := s.eng.RM(rmID); ok && rm.Undelivered() {
		return true
	}
	o := s.pending[rmID]
	return o != nil && o.Placements()
}

// handOver delivers what the engine decided so far when RM rmID has
// allocations or releases it has not heard of (settle's first half,
// which the engine also calls after every placement for an RM that
// settles: SetOnPlaced). It does not wait for the RM.
func (s *Service) handOver(rmID string) {
	if s.undelivered(rmID) {
		s.afterStep(0, 1)
		s.deliverEach(s.batching.now, false)
	}
}

// delivered notes a delivery, the start of the next batch.
func (b *batching) delivered() {
	b.checks = 0
	b.last = time.Now()
}

// intake applies the work taken from the inbox (in the order the take
// gave it) at now, cutting it into slices (cut) when it takes long.
func (s *Service) intake(work []request, now time.Time) {
	b := &s.batching
	b.intake, b.start = true, sliceStart(time.Now(), b.last)
	for i, r := range work {
		b.ahead = i < len(work)-1
		r.apply(now)
		s.cut(now)
	}
	b.intake, b.ahead = false, false
}

// requestsWaiting reports, between two decisions of a pass, whether
// requests wait that the goroutine would take in if the pass gave way
// (engine.SetSlice): not while requests it took in earlier wait to be
// applied (a pass between two of them), as it takes the next ones only
// after those.
func (s *Service) requestsWaiting() bool {
	return !s.batching.ahead && s.queued.Load()
}

// sliceStart is when the first slice of an intake starting at now counts
// from, the last delivery having been at last: now, or earlier by the
// difference of IntakeSlice and FirstSlice at the start of a burst, so
// that the slice ends after FirstSlice.
func sliceStart(now, last time.Time) time.Time {
	if now.Sub(last) >= IntakeSlice {
		return now.Add(FirstSlice - IntakeSlice)
	}
	return now
}

// cut runs a step and a delivery on what the intake took in so far once
// IntakeSlice has passed since the last one: between two requests, or
// between two asks of a large request (every cutEvery of them), where
// everything taken in is applied. Outside intake it does nothing.
func (s *Service) cut(now time.Time) {
	b := &s.batching
	if !b.intake || time.Since(b.start) < IntakeSlice || !s.eng.Dirty() {
		return
	}
	made := s.step(now)
	s.afterStep(1, made)
	s.deliver(now, false)
	// readers waiting for the current generation need not wait for the
	// whole intake: between two slices the state is whole
	s.serveSnapshots(now)
	b.start = time.Now()
}

// cutEvery is how many asks of one request intake applies between two
// looks at the clock.
const cutEvery = 64
