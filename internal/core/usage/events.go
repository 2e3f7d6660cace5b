package usage

import "github.com/paddock-sched/paddock/internal/resource"

// EventType is the kind of a usage event; the names are those of the SI
// EventRecord change details (reference §7).
type EventType uint8

// Event types.
const (
	// UserResource: a user's usage changed in a queue (ObjectID user,
	// ReferenceID leaf queue path, Resource the change).
	UserResource EventType = iota + 1
	// GroupResource: a group's usage changed in a queue.
	GroupResource
	// UserLimit: a user limit was set, changed or removed on a queue
	// (ObjectID user or "*", ReferenceID queue path).
	UserLimit
	// GroupLimit: a group limit was set, changed or removed on a queue.
	GroupLimit
	// AppLink: an application was linked to or unlinked from the group it
	// is tracked against (ObjectID group, ReferenceID application ID).
	AppLink
)

var eventTypeNames = [...]string{"", "UG_USER_RESOURCE", "UG_GROUP_RESOURCE", "UG_USER_LIMIT", "UG_GROUP_LIMIT", "UG_APP_LINK"}

func (t EventType) String() string {
	if int(t) < len(eventTypeNames) && t != 0 {
		return eventTypeNames[t]
	}
	return "UNKNOWN"
}

// Change is what happened to the object (SI EventRecord change type).
type Change uint8

// Change types.
const (
	Set Change = iota + 1
	Add
	Remove
)

func (c Change) String() string {
	switch c {
	case Set:
		return "SET"
	case Add:
		return "ADD"
	case Remove:
		return "REMOVE"
	}
	return "NONE"
}

// Event is one usage event. The engine translates it to an SI EventRecord
// of type USERGROUP.
type Event struct {
	Type        EventType
	Change      Change
	ObjectID    string
	ReferenceID string
	// Resource is the amount added or removed for resource events, zero
	// otherwise.
	Resource resource.Vector
}

// OnEvent sets the function every event is passed to, synchronously and in
// order; nil (the default) drops events.
// The event is the manager's: fn copies what it keeps.
func (m *Manager) OnEvent(fn func(*Event)) { m.emitFn = fn }

// emit passes e to the event function; it goes through the manager's own
// event so that fn gets a pointer without an allocation per event.
func (m *Manager) emit(t EventType, c Change, objectID, referenceID string, res *resource.Vector) {
	if m.emitFn == nil {
		return
	}
	// field by field: a whole-event assignment into the heap copies
	// through the write barrier's bulk path while the collector marks
	e := &m.ev
	e.Type, e.Change, e.ObjectID, e.ReferenceID = t, c, objectID, referenceID
	if res != nil {
		e.Resource = *res
	} else {
		e.Resource = resource.Vector{}
	}
	m.emitFn(e)
}
