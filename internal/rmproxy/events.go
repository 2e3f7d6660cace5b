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
// own. Records past it are dropped, and counted, until the next push.
const EventCapacity = 1000

// EventPushInterval is how often buffered events are pushed to an RM with
// SendEvent (reference §7: every 2 s).
const EventPushInterval = 2 * time.Second

// MaxEventMessage is the longest event message passed on (reference §7).
const MaxEventMessage = 1024

// eventBuffer holds an RM's events between pushes, up to its capacity:
// when it is full a new record is dropped and counted, as the reference's
// event store does (it keeps the oldest of an interval; at a high rate
// most records of an interval are dropped, and dropping the new ones costs
// no copy). Records are converted to SI messages only when pushed, with
// reg, the registry of the registration that made them.
type eventBuffer struct {
	recs     []event.Record // its capacity is the buffer's
	dropped  uint64
	lastPush time.Time
	reg      *resource.Registry
}

func newEventBuffer(capacity int, now time.Time) *eventBuffer {
	return &eventBuffer{recs: make([]event.Record, 0, capacity), lastPush: now}
}

func (b *eventBuffer) add(r *event.Record) {
	if len(b.recs) == cap(b.recs) {
		b.dropped++
		return
	}
	b.recs = append(b.recs, *r)
}

// take returns the buffered records, oldest first, and empties the buffer.
func (b *eventBuffer) take() []event.Record {
	out := slices.Clone(b.recs)
	b.recs = b.recs[:0]
	return out
}

// resize changes the capacity, keeping the oldest records that fit (the
// others count as dropped).
func (b *eventBuffer) resize(capacity int) {
	if capacity == cap(b.recs) {
		return
	}
	recs := b.recs
	if len(recs) > capacity {
		b.dropped += uint64(len(recs) - capacity)
		recs = recs[:capacity]
	}
	b.recs = append(make([]event.Record, 0, capacity), recs...)
}

// eventBufferOf is an RM's event buffer, made on first use.
func (s *Service) eventBufferOf(rmID string) *eventBuffer {
	b := s.events[rmID]
	if b == nil {
		if s.events == nil {
			s.events = map[string]*eventBuffer{}
		}
		b = newEventBuffer(EventCapacity, s.clk.Now())
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
	s.pace(rmID, e, s.clk.Now())
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
func (s *Service) eventSink(rmID string) func(*event.Record) {
	b, reg := s.eventBufferOf(rmID), s.eng.Registry(rmID)
	return func(r *event.Record) { s.bufferEvent(rmID, b, reg, r) }
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
		p := parcel{cb: s.callbacks[rmID]}
		s.pushEvents(rmID, &p, s.clk.Now(), true)
		s.send(rmID, &p)
		b.reg = reg
	}
	b.add(r)
	if s.hooks.Event != nil {
		s.hooks.Event(rmID, reg, r)
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

// pushEvents puts an RM's buffered events in its parcel p when the push
// interval has passed (or at once when force is set), unless its notice
// lane is full (notices.go).
func (s *Service) pushEvents(rmID string, p *parcel, now time.Time, force bool) {
	b := s.events[rmID]
	if b == nil || p.cb == nil || len(b.recs) == 0 {
		return
	}
	if !force && now.Sub(b.lastPush) < EventPushInterval {
		return
	}
	if c := s.couriers[rmID]; c != nil && c.notices.backlog() && !force {
		// the RM is slow to take its notices: its events wait in the
		// buffer, which is bounded, rather than on the notice lane
		return
	}
	b.lastPush = now
	recs := b.take()
	out := make([]*si.EventRecord, len(recs))
	for i, r := range recs {
		out[i] = eventToSI(b.reg, r, now)
	}
	p.events = out
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
