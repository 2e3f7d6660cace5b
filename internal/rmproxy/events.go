package rmproxy

import (
	"slices"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/resource"
	"github.com/paddock-sched/paddock/internal/resource/siconv"
)

// EventCapacity is how many event records wait for the next push to an RM
// by default; the RM's extra configuration event.requestCapacity sets its
// own. Older ones are dropped, and counted, when more arrive first.
const EventCapacity = 1000

// EventPushInterval is how often buffered events are pushed to an RM with
// SendEvent (reference §7: every 2 s).
const EventPushInterval = 2 * time.Second

// MaxEventMessage is the longest event message passed on (reference §7).
const MaxEventMessage = 1024

// eventBuffer holds an RM's newest events between pushes in a ring:
// when it is full the oldest is overwritten and counted as dropped.
// Records are converted to SI messages only when pushed, with reg, the
// registry of the registration that made them.
type eventBuffer struct {
	ring     []event.Record // its length is the capacity
	start, n int
	dropped  uint64
	lastPush time.Time
	reg      *resource.Registry
}

func (b *eventBuffer) add(r *event.Record) {
	c := len(b.ring)
	if b.n == c {
		b.ring[b.start] = *r
		b.start = wrap(b.start+1, c)
		b.dropped++
		return
	}
	b.ring[wrap(b.start+b.n, c)] = *r
	b.n++
}

// wrap is i mod c for 0 <= i < 2c, without a division (four records per
// allocation pass through the buffer).
func wrap(i, c int) int {
	if i >= c {
		i -= c
	}
	return i
}

// take returns the buffered records, oldest first, and empties the ring.
func (b *eventBuffer) take() []event.Record {
	out := make([]event.Record, b.n)
	for i := range out {
		out[i] = b.ring[(b.start+i)%len(b.ring)]
	}
	b.start, b.n = 0, 0
	return out
}

// resize changes the capacity, keeping the newest records that fit (the
// others count as dropped).
func (b *eventBuffer) resize(capacity int) {
	if capacity == len(b.ring) {
		return
	}
	recs := b.take()
	if len(recs) > capacity {
		b.dropped += uint64(len(recs) - capacity)
		recs = recs[len(recs)-capacity:]
	}
	b.ring = make([]event.Record, capacity)
	b.n = copy(b.ring, recs)
}

// eventBufferOf is an RM's event buffer, made on first use.
func (s *Service) eventBufferOf(rmID string) *eventBuffer {
	b := s.events[rmID]
	if b == nil {
		if s.events == nil {
			s.events = map[string]*eventBuffer{}
		}
		b = &eventBuffer{ring: make([]event.Record, EventCapacity), lastPush: s.clk.Now()}
		s.events[rmID] = b
	}
	return b
}

// applyExtra applies what the service takes from an RM's extra
// configuration: its event buffer's size (event.requestCapacity; the
// default when unset) and whether its Predicates sees allocations
// (paddock.predicates.seeAllocations, settle). A key whose value the
// check warns about leaves its setting as it is; the others apply (a typo
// in log.level does not cost the RM its event capacity).
func (s *Service) applyExtra(rmID string, extra map[string]string) {
	e, probs := config.ParseExtra(extra)
	bad := func(key string) bool {
		return slices.ContainsFunc(probs, func(p config.Problem) bool { return p.Key == key })
	}
	if !bad(config.ExtraEventRequestCapacity) {
		s.eventBufferOf(rmID).resize(e.EventRequestCapacity)
	}
	if !bad(config.ExtraPredicatesSeeAllocations) {
		*s.blindOf(rmID) = !e.PredicatesSeeAllocations
	}
}

// blindOf returns the flag saying RM rmID's Predicates does not depend on
// the allocations it heard of (Service.blind), made false on first use.
func (s *Service) blindOf(rmID string) *bool {
	b := s.blind[rmID]
	if b == nil {
		if s.blind == nil {
			s.blind = map[string]*bool{}
		}
		b = new(bool)
		s.blind[rmID] = b
	}
	return b
}

// eventSink is the engine's event sink for one registration of an RM: it
// buffers each record in the RM's buffer (bufferEvent), both the buffer
// and the registration's registry looked up once.
func (s *Service) eventSink(rmID string) func(event.Record) {
	b, reg := s.eventBufferOf(rmID), s.eng.Registry(rmID)
	return func(r event.Record) { s.bufferEvent(rmID, b, reg, &r) }
}

// bufferEvent buffers a record of RM rmID in b, its buffer; reg is the
// registry of the registration that made it. A record without a time (the
// engine leaves it to the sink where its call has none) gets the present
// time, the time it happened: the RM and the event history see the same.
func (s *Service) bufferEvent(rmID string, b *eventBuffer, reg *resource.Registry, r *event.Record) {
	if r.Time == 0 {
		r.Time = s.clk.Now().UnixNano()
	}
	if b.reg != reg {
		// the RM registered again: what it buffered before is named by
		// the registry of its previous registration
		s.pushEvents(rmID, s.clk.Now(), true)
		b.reg = reg
	}
	b.add(r)
	if s.hooks.Event != nil {
		s.hooks.Event(rmID, reg, *r)
	}
}

func eventToSI(reg *resource.Registry, r event.Record, now time.Time) *si.EventRecord {
	ts := r.Time
	if ts == 0 {
		ts = now.UnixNano()
	}
	msg := r.Message
	if len(msg) > MaxEventMessage {
		msg = msg[:MaxEventMessage]
	}
	out := &si.EventRecord{
		Type: si.EventRecord_Type(r.Type), ObjectID: r.ObjectID, ReferenceID: r.ReferenceID, Message: msg,
		TimestampNano: ts, EventChangeType: si.EventRecord_ChangeType(r.Change), EventChangeDetail: si.EventRecord_ChangeDetail(r.Detail),
	}
	if r.Resource.AnyPositive() {
		out.Resource, _ = siconv.Resource(reg, r.Resource)
	}
	return out
}

// pushEvents sends an RM its buffered events when the push interval has
// passed (or at once when force is set).
func (s *Service) pushEvents(rmID string, now time.Time, force bool) {
	b := s.events[rmID]
	cb := s.callbacks[rmID]
	if b == nil || cb == nil || b.n == 0 {
		return
	}
	if !force && now.Sub(b.lastPush) < EventPushInterval {
		return
	}
	b.lastPush = now
	recs := b.take()
	out := make([]*si.EventRecord, len(recs))
	for i, r := range recs {
		out[i] = eventToSI(b.reg, r, now)
	}
	cb.SendEvent(out)
}

// DroppedEvents returns how many events of an RM were dropped because its
// buffer was full between pushes.
func (s *Service) DroppedEvents(rmID string) uint64 {
	var n uint64
	_ = s.call(func(time.Time) error {
		if b := s.events[rmID]; b != nil {
			n = b.dropped
		}
		return nil
	})
	return n
}
