package events

import (
	"math/bits"

	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/resource"
)

// slot is how the ring keeps a record: its resource vector packed, since
// a record's vector has one to three quantities of resource.MaxTypes
// (an allocation's vcore and memory, a pod's count). A slot is about half
// an Entry, so the history at its default capacity takes half the memory
// and each append writes half the cache lines (the scheduler appends
// several records per allocation).
type slot struct {
	id                         uint64
	objectID, referenceID, msg string
	time                       int64
	reg                        *resource.Registry
	more                       *resource.Vector // the vector, when it has more than len(vals) quantities
	vals                       [3]int64         // the quantities of the types in mask, lowest type first
	mask                       resource.Mask
	detail                     event.Detail
	typ                        event.Type
	change                     event.Change
}

// set stores record rec, numbered id, of the registry reg.
func (s *slot) set(id uint64, reg *resource.Registry, rec *event.Record) {
	s.id, s.reg = id, reg
	s.objectID, s.referenceID, s.msg, s.time = rec.ObjectID, rec.ReferenceID, rec.Message, rec.Time
	s.typ, s.change, s.detail = rec.Type, rec.Change, rec.Detail
	s.mask, s.more = rec.Resource.Support(), nil
	if bits.OnesCount32(uint32(s.mask)) > len(s.vals) {
		v := rec.Resource
		s.more = &v
		return
	}
	k := 0
	for m := s.mask; m != 0; m &= m - 1 {
		s.vals[k] = rec.Resource[bits.TrailingZeros32(uint32(m))]
		k++
	}
}

// entry is the record the slot holds.
func (s *slot) entry() Entry {
	e := Entry{ID: s.id, Registry: s.reg, Record: event.Record{
		Type: s.typ, Change: s.change, Detail: s.detail,
		ObjectID: s.objectID, ReferenceID: s.referenceID, Message: s.msg, Time: s.time,
	}}
	if s.more != nil {
		e.Record.Resource = *s.more
		return e
	}
	k := 0
	for m := s.mask; m != 0; m &= m - 1 {
		e.Record.Resource[bits.TrailingZeros32(uint32(m))] = s.vals[k]
		k++
	}
	return e
}
