// Package rmproxy binds the in-process Scheduler Interface to the engine:
// it implements api.SchedulerAPI, converts SI messages into engine calls on
// the one goroutine that owns the engine, and delivers the engine's
// outcomes to each resource manager's callback. The part of an ask's
// conversion that reads no engine state runs on the caller's goroutine
// before the request is queued (prepare.go).
package rmproxy

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/core/latency"
	"github.com/paddock-sched/paddock/internal/core/partition"
	"github.com/paddock-sched/paddock/internal/resource"
)

// TickInterval is how often the service runs timers and a scheduling pass
// when nothing else wakes it.
const TickInterval = 100 * time.Millisecond

// predicateBlock is how many Predicates arguments are allocated at once.
const predicateBlock = 256

// Service is the scheduler service: an inbox of work, one goroutine that
// applies it to the engine, and the RM callbacks it reports to.
type Service struct {
	clk clock.Clock
	eng *engine.Engine

	manual  bool
	mu      sync.Mutex
	inbox   []request
	queue   queueState // the bound of inbox (queue.go)
	stopped bool
	// idle is set while the service goroutine waits for work
	idle bool
	// rms are the registered RMs' registries, for the callers' check and
	// their conversions (prepare.go); under mu, written on the service
	// goroutine as the RM registers
	rms map[string]*resource.Registry
	// queued is set while the inbox holds requests (read by the engine
	// between decisions, SetSlice)
	queued atomic.Bool
	// choked holds the RMs whose requests are refused while a stalled
	// callback's responses pile up (courier.go), with how many
	choked map[string]int64
	wake   chan struct{}
	done   chan struct{}

	// owned by the service goroutine
	noReserve bool // reservations off (SetReservations)
	// ignored bounds the warnings about ignored input (ignored.go)
	ignored   map[string]*ignoredKind
	callbacks map[string]api.ResourceManagerCallback
	// couriers deliver each RM's callbacks (courier.go); none on a manual
	// service. stallAfter and stopWait are StallAfter and StopWait
	// (shorter in tests).
	couriers   map[string]*courier
	stallAfter time.Duration
	stopWait   time.Duration
	maxHeld    int
	// allocationRate is the default bound on allocations a second per RM
	// (pace.go), 0 for none
	allocationRate float64
	// paced holds the RMs with a pacer: only then does the loop look for
	// timed work due before its next tick
	paced   map[string]bool
	pending map[string]*partition.Outbox
	events  map[string]*eventBuffer

	snaps snapState
	admit admission // who may register (registration.go)
	hooks Hooks
	// latency times the engine's scheduling phases while hooks.Latency is set.
	latency *latency.Recorder
	tally   Tally
	// batching delivers while a pass runs (batch.go)
	batching batching
	// blind holds, per RM, whether its Predicates answers do not depend on
	// the allocations it heard of (paddock.predicates.seeAllocations
	// false): settle leaves its deliveries batched. The flag's address is
	// stable, so the predicate closure reads it without a look-up.
	blind map[string]*bool
	// boxes is deliverTo's list of outboxes, kept between deliveries
	boxes []*partition.Outbox
	// ones is the block the responses of one-allocation deliveries come
	// from (deliver.go)
	ones []oneAllocation
	// removedApps maps (partition, app ID) to the queue of applications
	// removed since the last tally report
	removedApps map[QueueKey]string
	// lead is the standby gate (standby.go)
	lead leadGate
}

var _ api.SchedulerAPI = (*Service)(nil)

// Asker is implemented by an RM callback that answers Predicates or
// PreemptionPredicates only at times (the gRPC relay, for an RM that asked
// for them on its callbacks stream): while it does not, every node is
// allowed without asking, and the service does not deliver before the call
// (settle). An in-process RM answers both always.
type Asker interface {
	AnswersPredicates() bool
	AnswersPreemptionPredicates() bool
}

// ErrStopped is returned by calls made after Stop.
var ErrStopped = errors.New("scheduler service is stopped")

// New starts a scheduler service on clock clk, with its own goroutine.
func New(clk clock.Clock) *Service {
	s := newService(clk)
	s.batching.maxCheck = max(MaxBatch/partition.BatchCheck, 1)
	s.eng.SetBatch(s.batch)
	s.eng.SetSlice(PassSlice, time.Now, s.requestsWaiting)
	go s.loop()
	return s
}

// NewManual returns a scheduler service without a goroutine: nothing
// happens until the owner calls Cycle, which applies the queued requests,
// runs a scheduling step at the clock's time and delivers the callbacks on
// the caller's goroutine. The trace simulator uses it to drive the real
// SI path on virtual time, deterministically. Synchronous calls
// (RegisterResourceManager, UpdateConfiguration, Inspect) run at once.
func NewManual(clk clock.Clock) *Service {
	s := newService(clk)
	s.manual = true
	return s
}

func newService(clk clock.Clock) *Service {
	return &Service{
		queue:      queueState{max: DefaultMaxQueued, wait: DefaultQueueWait},
		clk:        clk,
		eng:        engine.New(),
		wake:       make(chan struct{}, 1),
		done:       make(chan struct{}),
		callbacks:  map[string]api.ResourceManagerCallback{},
		couriers:   map[string]*courier{},
		stallAfter: StallAfter,
		stopWait:   StopWait,
		maxHeld:    MaxHeld,
	}
}

// Cycle processes everything queued, runs one engine step and delivers the
// outcomes. It returns the number of allocations the step made. Only for
// services made by NewManual.
func (s *Service) Cycle() int {
	s.mu.Lock()
	work := s.takeLocked()
	s.mu.Unlock()
	s.snaps.own.Lock()
	now := s.clk.Now()
	for _, r := range work {
		r.apply(now)
	}
	made := s.step(now)
	s.afterStep(len(work), made)
	s.sweepIdle(now)
	s.snaps.own.Unlock()
	s.deliver(now, true)
	s.reportTally()
	return made
}

// enqueue hands f, carrying n SI items, to the service goroutine, waiting
// for room while the queue is full (queue.go); n = 0 never waits.
func (s *Service) enqueue(f func(now time.Time), n int) error {
	return s.enqueueFrom("", f, n)
}

// enqueueFrom is enqueue for a request of RM rmID, refused while that
// RM's stalled callback holds too many responses (courier.go).
func (s *Service) enqueueFrom(rmID string, f func(now time.Time), n int) error {
	s.mu.Lock()
	if len(s.choked) > 0 && rmID != "" {
		if err := s.chokedLocked(rmID); err != nil {
			s.mu.Unlock()
			return err
		}
	}
	if err := s.admitLocked(rmID, n); err != nil {
		s.mu.Unlock()
		return err
	}
	s.inbox = append(s.inbox, request{rmID: rmID, items: n, apply: f})
	s.queue.items += n
	if rmID != "" && n > 0 {
		if s.queue.byRM == nil {
			s.queue.byRM = map[string]int{}
		}
		s.queue.byRM[rmID] += n
	}
	s.queued.Store(true)
	s.mu.Unlock()
	s.poke()
	return nil
}

// Wake makes the service goroutine look at the clock now rather than at
// its next tick: a virtual clock's owner calls it after moving the clock,
// so that timers due fire at once.
func (s *Service) Wake() { s.poke() }

// poke wakes the service goroutine.
func (s *Service) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// call runs f on the service goroutine and waits for its result.
func (s *Service) call(f func(now time.Time) error) error {
	if s.manual {
		s.mu.Lock()
		stopped := s.stopped
		s.mu.Unlock()
		if stopped {
			return ErrStopped
		}
		s.snaps.own.Lock()
		defer s.snaps.own.Unlock()
		defer s.changedSync()
		return f(s.clk.Now())
	}
	res := make(chan error, 1)
	// the generation moves before the caller hears back, so a snapshot it
	// asks for next shows what the call did
	if err := s.enqueue(func(now time.Time) { err := f(now); s.changedSync(); res <- err }, 0); err != nil {
		return err
	}
	select {
	case err := <-res:
		return err
	case <-s.done:
		return ErrStopped
	}
}

func (s *Service) loop() {
	defer close(s.done)
	tick := time.NewTicker(TickInterval)
	defer tick.Stop()
	// soon fires for timed work due before the next tick (a pass the
	// pacer held back)
	soon := time.NewTimer(time.Hour)
	soon.Stop()
	defer soon.Stop()
	for {
		s.mu.Lock()
		s.idle = true
		s.mu.Unlock()
		select {
		case <-s.wake:
		case <-tick.C:
		case <-soon.C:
		}
		s.mu.Lock()
		s.idle = false
		stopped := s.stopped
		var work []request
		if stopped {
			work = s.takeLocked() // everything queued before Stop
		} else {
			work = s.takeSomeLocked()
		}
		more := len(s.inbox) > 0
		s.mu.Unlock()
		if more {
			s.poke() // the rest of the queue next round
		}
		now := s.clk.Now()
		s.intake(work, now)
		if stopped {
			return
		}
		made := s.step(now)
		s.afterStep(len(work), made)
		s.deliver(now, false)
		if s.eng.Yielded() {
			s.poke() // a pass gave way: go on with it after the inbox
		}
		s.watchCouriers()
		s.sweepIdle(now)
		s.reportTally()
		s.serveSnapshots(now)
		if next := s.pacedTimer(); !next.IsZero() {
			// work already due waits for the tick: a partition whose
			// passes do not run (a paused RM, a standby) keeps its
			// timers due, and must not make this loop spin
			if d := next.Sub(s.clk.Now()); d > 0 && d < TickInterval {
				soon.Reset(d)
			}
		}
	}
}

// step runs one engine step, timed when a hook wants the duration.
func (s *Service) step(now time.Time) int {
	if s.lead.closed() {
		return 0 // a standby decides nothing (standby.go)
	}
	s.resume() // a renewal after a lapse: every partition passes
	if s.hooks.Latency != nil {
		defer s.reportLatency()
	}
	s.batching.now = now
	if s.hooks.Step == nil {
		return s.eng.Step(now)
	}
	start := time.Now()
	made := s.eng.Step(now)
	s.hooks.Step(time.Since(start), made)
	return made
}

// reportLatency hands the phase durations of a step to their hook.
func (s *Service) reportLatency() {
	h := s.latency.Drain()
	s.hooks.Latency(&h)
}

// Stop stops the service goroutine after the work already queued.
func (s *Service) Stop() {
	s.mu.Lock()
	if s.manual {
		s.stopped = true
		s.mu.Unlock()
		return
	}
	if s.stopped {
		s.mu.Unlock()
		<-s.done
		return
	}
	s.stopped = true
	s.mu.Unlock()
	s.poke()
	<-s.done
	// the goroutine has exited: the couriers are the service's to stop
	deadline := time.Now().Add(s.stopWait)
	for _, c := range s.couriers {
		c.finish(deadline)
	}
}

// Inspect runs f on the service goroutine with the live engine and waits
// for it: the way tests and state dumps read consistent state.
func (s *Service) Inspect(f func(e *engine.Engine)) error {
	return s.call(func(time.Time) error { f(s.eng); return nil })
}

// ExplainPreemption is a dry run of preemption for a pending ask, at the
// service's time, on the service goroutine (partition.ExplainPreemption).
func (s *Service) ExplainPreemption(rmID, partitionName, appID, key string) (partition.PreemptDryRun, error) {
	var out partition.PreemptDryRun
	err := s.call(func(now time.Time) error {
		p, err := s.eng.Partition(rmID, partitionName)
		if err != nil {
			return err
		}
		out, err = p.ExplainPreemption(appID, key, now)
		return err
	})
	return out, err
}

// RegisterResourceManager registers (or re-registers) an RM. It is
// synchronous: when it returns, the RM's partitions exist. Do not call it
// from inside a callback.
func (s *Service) RegisterResourceManager(req *si.RegisterResourceManagerRequest, cb api.ResourceManagerCallback) (*si.RegisterResourceManagerResponse, error) {
	if req == nil {
		return nil, errors.New("register: nil request")
	}
	if cb == nil {
		return nil, errors.New("register: nil callback")
	}
	err := s.call(func(now time.Time) error {
		if err := s.admits(req.RmID, now); err != nil {
			return err
		}
		if err := s.eng.RegisterRM(req.RmID, req.PolicyGroup, req.Config, req.ExtraConfig); err != nil {
			return err
		}
		s.noteRM(req, now)
		s.noteIdle(req.RmID, cb, now)
		s.callbacks[req.RmID] = cb
		if !s.manual {
			if old := s.couriers[req.RmID]; old == nil || old.paused.Load() {
				// an RM that registers again while a callback of its
				// last registration is stalled starts afresh: what that
				// one still held for it is dropped
				if old != nil {
					old.retire()
					if old.choked {
						s.choke(req.RmID, old, false)
					}
				}
				s.couriers[req.RmID] = newCourier(s.stallAfter, s.poke, s.maxHeld)
			}
		}
		s.mu.Lock()
		if s.rms == nil {
			s.rms = map[string]*resource.Registry{}
		}
		s.rms[req.RmID] = s.eng.Registry(req.RmID)
		s.mu.Unlock()
		rmID := req.RmID
		s.eng.SetEventSink(rmID, s.eventSink(rmID))
		s.applyExtra(rmID, req.ExtraConfig)
		if s.noReserve {
			s.applyReservations()
		}
		if s.hooks.Extra != nil {
			s.hooks.Extra(rmID, req.ExtraConfig)
		}
		if l := s.hooks.Logger; l != nil {
			l.Info("resource manager registered", "rmID", rmID, "policyGroup", req.PolicyGroup)
		}
		// the RM's Predicates callback vetoes nodes that fit (reference §2.7)
		// (its error says why: it goes into the ask's request event;
		// the arguments come from blocks: one object per call is the
		// largest cost of a decision otherwise)
		var args []si.PredicatesArgs
		asks, _ := cb.(Asker)
		blind := s.blindOf(rmID)
		c := s.couriers[rmID]
		// settles reports whether the RM's Predicates answers depend on
		// the allocations it heard of (it then hears of each first)
		settles := func() bool { return !*blind && (asks == nil || asks.AnswersPredicates()) }
		s.eng.SetPredicate(req.RmID, func(x *app.Allocation, nodeID string, allocate bool) error {
			if s.lead.closed() {
				return errStandby
			}
			if c != nil && c.paused.Load() {
				return errStalled
			}
			// the RM hears of every placement before it is asked
			// (settle), and is not asked once its callback stalled
			if settles() && !s.settle(rmID, c) {
				return errStalled
			}
			if len(args) == 0 {
				args = make([]si.PredicatesArgs, predicateBlock)
			}
			a := &args[0]
			args = args[1:]
			a.AllocationKey, a.NodeID, a.Allocate = x.Key, nodeID, allocate
			return cb.Predicates(a)
		})
		// each placement goes to the courier as soon as it is applied:
		// the RM takes it in while the pass picks the next ask and its
		// node, and settle, before the RM is asked about that node,
		// mostly finds it heard already
		s.eng.SetOnPlaced(rmID, func() {
			if c != nil && !c.paused.Load() && settles() {
				s.handOver(rmID)
			}
		})
		// and its PreemptionPredicates confirms a node's victims (§2.12);
		// no answer counts as a refusal
		s.eng.SetPreemptCheck(req.RmID, func(x *app.Allocation, nodeID string, victims []string, start int) (bool, int) {
			if c != nil && c.paused.Load() || s.lead.closed() {
				return false, 0
			}
			if !*blind && (asks == nil || asks.AnswersPreemptionPredicates()) && !s.settle(rmID, c) {
				return false, 0
			}
			r := cb.PreemptionPredicates(&si.PreemptionPredicatesArgs{
				AllocationKey: x.Key, NodeID: nodeID, PreemptAllocationKeys: victims, StartIndex: int32(start),
			})
			if r == nil || !r.Success {
				return false, 0
			}
			return true, int(r.Index)
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &si.RegisterResourceManagerResponse{}, nil
}

// checkRM is the error for a request of an RM that never registered, as
// the reference words it; such a request changes nothing.
func (s *Service) checkRM(what, rmID string) error {
	_, _, err := s.registered(what, rmID)
	return err
}

// registered is checkRM that also returns the RM's resource registry as
// of its last registration, and whether the service goroutine waits for
// work with nothing queued.
func (s *Service) registered(what, rmID string) (*resource.Registry, bool, error) {
	s.mu.Lock()
	reg, ok := s.rms[rmID]
	stopped, idle := s.stopped, s.idle && len(s.inbox) == 0
	s.mu.Unlock()
	if stopped {
		return nil, false, ErrStopped
	}
	if !ok {
		return nil, false, fmt.Errorf("received %s, but RmID=%q not registered", what, rmID)
	}
	return reg, idle, nil
}

// UpdateConfiguration reloads an RM's configuration; synchronous.
func (s *Service) UpdateConfiguration(req *si.UpdateConfigurationRequest) error {
	if req == nil {
		return errors.New("update configuration: nil request")
	}
	if err := s.checkRM("UpdateConfigurationRequest", req.RmID); err != nil {
		return err
	}
	return s.call(func(now time.Time) error {
		if err := s.eng.UpdateConfig(req.RmID, req.Config, req.ExtraConfig, now); err != nil {
			if l := s.hooks.Logger; l != nil {
				l.Warn("configuration update rejected", "rmID", req.RmID, "err", err)
			}
			return err
		}
		if req.ExtraConfig != nil {
			s.applyExtra(req.RmID, req.ExtraConfig)
		}
		if s.noReserve {
			s.applyReservations()
		}
		if s.hooks.Extra != nil && req.ExtraConfig != nil {
			s.hooks.Extra(req.RmID, req.ExtraConfig)
		}
		if l := s.hooks.Logger; l != nil {
			l.Info("configuration updated", "rmID", req.RmID)
		}
		return nil
	})
}

// UpdateNode queues node changes; outcomes arrive through the callback.
// While the service queue is full it waits for room, then fails with
// ErrBusy (queue.go); so do UpdateApplication and UpdateAllocation.
func (s *Service) UpdateNode(req *si.NodeRequest) error {
	if req == nil {
		return errors.New("update node: nil request")
	}
	if err := s.checkRM("NodeRequest", req.RmID); err != nil {
		return err
	}
	return s.enqueueFrom(req.RmID, func(now time.Time) { s.applyNodes(req, now) }, nodeItems(req))
}

// UpdateApplication queues application changes.
func (s *Service) UpdateApplication(req *si.ApplicationRequest) error {
	if req == nil {
		return errors.New("update application: nil request")
	}
	if err := s.checkRM("ApplicationRequest", req.RmID); err != nil {
		return err
	}
	return s.enqueueFrom(req.RmID, func(now time.Time) { s.applyApps(req, now) }, appItems(req))
}

// UpdateAllocation queues asks, allocations and releases. While the
// service goroutine is busy, it first converts what of the asks needs no
// core state (prepare.go) on the caller's goroutine, so that work runs
// beside the service goroutine's; an idle service goroutine takes the
// request at once, as its first allocation would wait for the
// preparation otherwise, and so does a process running on one processor
// (GOMAXPROCS 1), where the preparation could only run instead of the
// service goroutine.
func (s *Service) UpdateAllocation(req *si.AllocationRequest) error {
	if req == nil {
		return errors.New("update allocation: nil request")
	}
	reg, idle, err := s.registered("AllocationRequest", req.RmID)
	if err != nil {
		return err
	}
	var pre *prepared
	if !idle && runtime.GOMAXPROCS(0) > 1 {
		pre = prepare(reg, req)
	}
	err = s.enqueueFrom(req.RmID, func(now time.Time) { s.applyAllocations(req, pre, now) }, allocItems(req))
	if idle {
		// the service goroutine, woken by the enqueue, waits on this
		// goroutine's processor until another one takes it: yield, so
		// that it starts on the request now rather than after the RM's
		// next requests
		runtime.Gosched()
	}
	return err
}

// pacedTimer is the engine's next timed work while some RM is paced (a
// pass the pacer held back comes back within a tick), else zero: without
// pacers the tick is fine enough, and the loop does not walk every
// partition's timers after each round.
func (s *Service) pacedTimer() time.Time {
	if len(s.paced) == 0 {
		return time.Time{}
	}
	return s.eng.NextTimer()
}
