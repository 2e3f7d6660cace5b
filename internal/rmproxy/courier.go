package rmproxy

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/partition"
)

// An RM's callbacks run on a goroutine of their own, its courier, not on
// the service goroutine (New; a manual service calls them on the caller's
// goroutine, as part of Cycle). The service goroutine builds each delivery
// (parcel) from the engine's outboxes and hands it over; the courier makes
// the calls in the order handed over. A callback that blocks (the
// Kubernetes shim retries assuming a pod for minutes when its volumes do
// not bind) therefore holds up only its own RM's deliveries: the service
// keeps taking requests in, so the RM's calls do not fill the queue and
// fail with ErrBusy, and keeps scheduling for the other RMs.
//
// A callback that has run for StallAfter stalls its RM: the service pauses
// the RM's scheduling passes (engine.Pause) and its node checks refuse
// every node, so that no decision for it piles up unheard, until the
// callback returns. Before the engine asks an RM about a node (settle),
// the service waits for the courier to deliver what was decided so far,
// for as long as that takes or the callback running stalls.
//
// The decision callbacks of one RM (UpdateNode, UpdateApplication,
// UpdateAllocation) never run at the same time as each other. Its notices
// (UpdateContainerSchedulingState, SendEvent) go on a lane of their own
// (notices.go) and may run while a decision is delivered, and its
// Predicates and PreemptionPredicates run on the service goroutine and
// may run while either lane delivers, as with the reference, which calls
// each of these from a goroutine of its own.

// StallAfter is how long an RM's callback may run before the service
// stops scheduling for the RM until it returns.
const StallAfter = 2 * time.Second

// MaxHeld bounds the SI items (responses) a stalled RM's courier holds:
// past it, the RM's requests are refused with ErrBusy until its callback
// returns, as a full service queue refuses them, so that an RM stuck in a
// callback while its other goroutines keep sending cannot grow the
// scheduler's memory without limit.
const MaxHeld = DefaultMaxQueued

// StopWait is the longest Stop waits for the couriers to deliver what
// they hold.
const StopWait = 5 * time.Second

// parcel is one delivery to an RM: the responses in the order they are
// sent, each nil when there is nothing of its kind.
type parcel struct {
	cb      api.ResourceManagerCallback
	nodes   *si.NodeResponse
	apps    *si.ApplicationResponse
	allocs  *si.AllocationResponse
	later   *si.ApplicationResponse // state changes that follow the allocations
	waiting []*si.UpdateContainerSchedulingStateRequest
	events  []*si.EventRecord
	n       int64 // items, set as it is handed over
	// gate, when closed as the parcel is sent, stops all but its node
	// answers (standby.go)
	gate *leadGate
}

// items counts the SI items of the parcel's responses, its events aside
// (they are bounded where they wait: events.go).
func (p *parcel) items() int64 {
	n := len(p.waiting)
	if p.nodes != nil {
		n += len(p.nodes.Accepted) + len(p.nodes.Rejected)
	}
	for _, a := range [...]*si.ApplicationResponse{p.apps, p.later} {
		if a != nil {
			n += len(a.Accepted) + len(a.Rejected) + len(a.Updated)
		}
	}
	if a := p.allocs; a != nil {
		n += len(a.New) + len(a.Released) + len(a.RejectedAllocations)
	}
	return int64(n)
}

func (p *parcel) empty() bool {
	return p.nodes == nil && p.apps == nil && p.allocs == nil && p.later == nil &&
		len(p.waiting) == 0 && len(p.events) == 0
}

// send makes the parcel's calls. Before each call past the node answers
// it checks the leadership gate: once closed, the rest is dropped
// (standby.go).
func (p *parcel) send() {
	if p.nodes != nil {
		_ = p.cb.UpdateNode(p.nodes)
		p.nodes = nil
	}
	if p.fenced() {
		return
	}
	if p.apps != nil {
		_ = p.cb.UpdateApplication(p.apps)
		p.apps = nil
	}
	if p.fenced() {
		return
	}
	if p.allocs != nil {
		_ = p.cb.UpdateAllocation(p.allocs)
		p.allocs = nil
	}
	if p.fenced() {
		return
	}
	if p.later != nil {
		_ = p.cb.UpdateApplication(p.later)
		p.later = nil
	}
	if p.fenced() {
		return
	}
	for _, w := range p.waiting {
		p.cb.UpdateContainerSchedulingState(w)
	}
	if len(p.events) > 0 {
		p.cb.SendEvent(p.events)
	}
}

// courier delivers one RM's parcels on its own goroutine.
//
// A service that settles (an RM whose node checks see allocations) waits
// for the courier once per allocation, so the hand-over is the cost of a
// decision: while such waits come, the courier and the waiter spin for a
// few microseconds (spinFor) before they park, and the counters are
// atomic.
type courier struct {
	// The counters each side writes on every parcel are kept on cache
	// lines of their own (the pads), so that a write of one goroutine
	// does not take from the other the line it only reads: what the
	// service goroutine writes,
	handed      atomic.Uint64 // parcels handed over
	handedItems atomic.Int64  // their SI items
	_           [cacheLine]byte
	// what the courier's goroutine writes,
	sent      atomic.Uint64 // parcels sent
	sentItems atomic.Int64  // their SI items
	// busy is set while a parcel is being sent; parked while the
	// goroutine waits on wake
	busy   atomic.Bool
	parked atomic.Bool
	_      [cacheLine]byte

	// the queue, which both write on every parcel,
	mu    sync.Mutex
	queue []parcel
	spare []parcel // the array the goroutine emptied last, for queue (its own)
	_     [cacheLine]byte

	// and what both read on every parcel and seldom write, or the
	// service goroutine alone keeps. paused is set while the service
	// has the RM paused (by the service goroutine), so that the
	// goroutine wakes it when the callback returns
	paused atomic.Bool
	// seen, seenBusy and seenAt are the service goroutine's last look
	// at sent and busy, and when they took those values (stalled)
	seen     uint64
	seenBusy bool
	seenAt   time.Time
	// choked is set by the service goroutine while the RM's requests are
	// refused (watchCouriers)
	choked bool
	// hot is set while waits came lately (the goroutine spins for work
	// before parking)
	hot  atomic.Bool
	stop atomic.Bool // Stop: deliver what is queued, then exit
	// retired is set when the RM registered again while this courier
	// stalled: it sends nothing more and exits
	retired atomic.Bool
	// target is the count a waiter (await) waits for, 0 for none;
	// drained is signalled when sent reaches it
	target  atomic.Uint64
	wake    chan struct{}
	drained chan struct{}
	exited  chan struct{}
	// after is StallAfter (shorter in tests); poke wakes the service
	// goroutine when a callback that stalled returns
	after time.Duration
	poke  func()
	timer *time.Timer // await's, owned by the service goroutine
	// notices sends the RM's hints and events (notices.go)
	notices *noticeLane
}

// cacheLine is the size of a cache line, or more: fields apart by this
// much never share one.
const cacheLine = 64

// held is the number of SI items of the parcels handed over and not yet
// sent.
func (c *courier) held() int64 { return c.handedItems.Load() - c.sentItems.Load() }

// spinFor is how long the courier looks for work, and a waiter for the
// courier, before parking, while waits come (see courier).
const spinFor = 50 * time.Microsecond

func newCourier(after time.Duration, poke func(), maxNotices int) *courier {
	c := &courier{
		wake:    make(chan struct{}, 1),
		drained: make(chan struct{}, 1),
		exited:  make(chan struct{}),
		after:   after,
		poke:    poke,
		notices: newNoticeLane(maxNotices),
	}
	go c.run()
	return c
}

// hand queues p for delivery. When the goroutine was parked, the caller
// yields its processor: the goroutine woken would otherwise wait for it,
// with the other processors busy (the RM's own goroutines), until the
// scheduler preempts the caller, some 10 ms later.
func (c *courier) hand(p parcel) {
	if len(p.waiting)+len(p.events) > 0 {
		c.notices.hand(notice{cb: p.cb, waiting: p.waiting, events: p.events})
		p.waiting, p.events = nil, nil
		if p.empty() {
			return
		}
	}
	p.n = p.items()
	c.handedItems.Add(p.n)
	c.mu.Lock()
	c.queue = append(c.queue, p)
	c.mu.Unlock()
	c.handed.Add(1)
	if !c.parked.Load() {
		return
	}
	if c.signal() {
		runtime.Gosched()
	}
}

// signal wakes the goroutine if it is parked, and reports whether it
// put a wake-up in (none was pending).
func (c *courier) signal() bool {
	select {
	case c.wake <- struct{}{}:
		return true
	default:
		return false
	}
}

func (c *courier) run() {
	defer close(c.exited)
	for {
		c.mu.Lock()
		batch := c.queue
		c.queue = c.spare[:0]
		c.mu.Unlock()
		c.spare = batch[:0]
		if len(batch) == 0 {
			if c.stop.Load() {
				return
			}
			c.idle()
			continue
		}
		for i := range batch {
			if c.retired.Load() {
				clear(batch[i:])
				break
			}
			c.busy.Store(true)
			batch[i].send()
			c.busy.Store(false)
			c.sentItems.Add(batch[i].n)
			batch[i] = parcel{}
			if n := c.sent.Add(1); n == c.target.Load() {
				c.target.Store(0)
				select {
				case c.drained <- struct{}{}:
				default:
				}
			}
			if c.paused.Load() {
				c.poke() // the service resumes the RM
			}
		}
	}
}

// idle waits for work: spinning a while first when waits came lately,
// then parked on wake.
func (c *courier) idle() {
	if c.hot.Load() && spin(func() bool { return c.handed.Load() != c.sent.Load() || c.stop.Load() }) {
		return
	}
	c.hot.Store(false)
	c.parked.Store(true)
	// hand sets handed, then reads parked; this reads handed after
	// setting parked: one of the two sees the other
	if c.handed.Load() == c.sent.Load() && !c.stop.Load() {
		<-c.wake
	}
	c.parked.Store(false)
}

// spin calls done until it holds, for up to spinFor, yielding the
// processor every few calls; it reports whether done held. It does not spin
// with a single processor.
func spin(done func() bool) bool {
	if runtime.GOMAXPROCS(0) < 2 {
		return done()
	}
	var start time.Time // read once the wait is not short
	for i := 1; ; i++ {
		if done() {
			return true
		}
		if i&63 != 0 {
			continue
		}
		if start.IsZero() {
			start = time.Now()
		} else if time.Since(start) >= spinFor {
			return false
		}
		runtime.Gosched()
	}
}

// stalled reports whether one callback has been running for StallAfter
// or longer at now, as far as the service goroutine's looks tell (it
// calls this at least every TickInterval, and while it waits): the
// goroutine reads no clock per parcel.
func (c *courier) stalled(now time.Time) bool {
	sent, busy := c.sent.Load(), c.busy.Load()
	if !busy || !c.seenBusy || sent != c.seen {
		c.seen, c.seenBusy, c.seenAt = sent, busy, now
		return false
	}
	return now.Sub(c.seenAt) >= c.after
}

// await waits until every parcel handed over so far is sent, and reports
// whether they were; it gives up (false) once the callback running has
// run for StallAfter. Only the service goroutine calls it.
func (c *courier) await() bool {
	want := c.handed.Load()
	if c.sent.Load() >= want {
		return true
	}
	if !c.hot.Load() {
		c.hot.Store(true) // a store per wait would take the line from the goroutine
	}
	if spin(func() bool { return c.sent.Load() >= want }) {
		return true
	}
	// a signal of an earlier wait that gave up is stale
	select {
	case <-c.drained:
	default:
	}
	for {
		// set on every round: the goroutine clears the target of an
		// earlier wait it had just met, maybe after this one set its own
		// (it signals drained then, which brings this wait round)
		c.target.Store(want)
		if c.sent.Load() >= want {
			c.target.Store(0)
			return true
		}
		if c.stalled(time.Now()) {
			c.target.Store(0)
			return false
		}
		if c.timer == nil {
			c.timer = time.NewTimer(c.after / 8)
		} else {
			c.timer.Reset(c.after / 8)
		}
		select {
		case <-c.drained:
			c.timer.Stop()
		case <-c.timer.C:
		}
	}
}

// retire makes the goroutine drop what it holds and exit once the
// callback running returns; it does not wait.
func (c *courier) retire() {
	c.notices.retire()
	c.retired.Store(true)
	c.mu.Lock()
	clear(c.queue)
	c.queue = c.queue[:0]
	c.mu.Unlock()
	c.stop.Store(true)
	c.signal()
}

// finish makes the goroutine exit once it has sent what is queued, and
// waits for that until deadline.
func (c *courier) finish(deadline time.Time) {
	c.stop.Store(true)
	c.signal()
	c.notices.finish()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	for _, exited := range [...]chan struct{}{c.exited, c.notices.exited} {
		select {
		case <-exited:
		case <-t.C:
			return
		}
	}
}

// errStalled is the node checks' answer for an RM whose callback stalled:
// not a veto of the node (partition.ErrRMUnavailable), so the pass leaves
// the RM's asks as they are until it returns.
var errStalled = fmt.Errorf("%w: it has not returned from a callback and is not asked about nodes until it does", partition.ErrRMUnavailable)

// pause stops scheduling for RM rmID, whose courier c stalled.
func (s *Service) pause(rmID string, c *courier) {
	if c.paused.Load() {
		return
	}
	c.paused.Store(true)
	s.eng.Pause(rmID, true)
	if l := s.hooks.Logger; l != nil {
		l.Warn("resource manager callback has not returned; scheduling for it is paused until it does",
			"rmID", rmID, "after", s.stallAfter)
	}
}

// watchCouriers pauses the RMs whose couriers stalled and resumes those
// whose couriers go on, after a step.
func (s *Service) watchCouriers() {
	if len(s.couriers) == 0 {
		return
	}
	now := time.Now()
	for id, c := range s.couriers {
		switch stalled := c.stalled(now); {
		case stalled && !c.paused.Load():
			s.pause(id, c)
		case !stalled && c.paused.Load():
			c.paused.Store(false)
			s.eng.Pause(id, false)
			if l := s.hooks.Logger; l != nil {
				l.Info("resource manager callback returned; scheduling for it resumes", "rmID", id)
			}
		}
		if choke := c.paused.Load() && c.held() > int64(s.maxHeld); choke != c.choked {
			s.choke(id, c, choke)
		}
	}
}

// choke starts (on) or ends refusing the requests of RM rmID, whose
// stalled courier c holds more than maxHeld items.
func (s *Service) choke(rmID string, c *courier, on bool) {
	c.choked = on
	s.mu.Lock()
	if on {
		if s.choked == nil {
			s.choked = map[string]int64{}
		}
		s.choked[rmID] = c.held()
	} else {
		delete(s.choked, rmID)
	}
	s.mu.Unlock()
	if l := s.hooks.Logger; l != nil && on {
		l.Warn("resource manager callback has not returned and its responses pile up; its requests are refused until it does",
			"rmID", rmID, "responses", c.held(), "limit", s.maxHeld)
	}
}

// chokedLocked is the error for a request of RM rmID while its requests
// are refused (s.mu held), or nil.
func (s *Service) chokedLocked(rmID string) error {
	held, ok := s.choked[rmID]
	if !ok {
		return nil
	}
	return fmt.Errorf("%w: resource manager %s has not returned from a callback and %d responses wait for it (the limit is %d); retry once it returns",
		ErrBusy, rmID, held, s.maxHeld)
}
