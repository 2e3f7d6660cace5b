package borg

import "strconv"

// EventType is the lifecycle event of a job (collection) or task (instance),
// common to both trace versions. The 2011 and 2019 traces number their events
// differently; EventTypeFrom2011 and EventTypeFrom2019 map them here.
type EventType uint8

// Event types. EventQueue and EventEnable only occur in the 2019 trace.
const (
	EventUnknown       EventType = iota
	EventSubmit                  // submitted to the scheduler
	EventQueue                   // marked not eligible for scheduling by the batch scheduler (2019)
	EventEnable                  // became eligible for scheduling (2019)
	EventSchedule                // started running on a machine
	EventEvict                   // descheduled for a higher-priority task or overcommitment
	EventFail                    // descheduled due to a failure
	EventFinish                  // completed normally
	EventKill                    // cancelled by the user or because a depended-upon job died
	EventLost                    // presumably terminated; data missing
	EventUpdatePending           // updated while waiting to be scheduled
	EventUpdateRunning           // updated while scheduled
)

var eventTypeNames = [...]string{
	"UNKNOWN", "SUBMIT", "QUEUE", "ENABLE", "SCHEDULE", "EVICT", "FAIL",
	"FINISH", "KILL", "LOST", "UPDATE_PENDING", "UPDATE_RUNNING",
}

// String returns the trace documentation's name of the event, e.g. "SCHEDULE".
func (t EventType) String() string {
	if int(t) < len(eventTypeNames) {
		return eventTypeNames[t]
	}
	return "EventType(" + strconv.Itoa(int(t)) + ")"
}

// Ends reports whether the event ends the job's or task's current life: it is
// no longer pending or running afterwards (EVICT, FAIL, FINISH, KILL, LOST).
// In the traces an ended task may be submitted again later.
func (t EventType) Ends() bool {
	return t >= EventEvict && t <= EventLost
}

// 2011 numbering: 0 SUBMIT, 1 SCHEDULE, 2 EVICT, 3 FAIL, 4 FINISH, 5 KILL,
// 6 LOST, 7 UPDATE_PENDING, 8 UPDATE_RUNNING.
var eventTypes2011 = [...]EventType{
	EventSubmit, EventSchedule, EventEvict, EventFail, EventFinish,
	EventKill, EventLost, EventUpdatePending, EventUpdateRunning,
}

// EventTypeFrom2011 maps a 2011 job_events/task_events event type number.
func EventTypeFrom2011(v int64) (EventType, bool) {
	if v < 0 || v >= int64(len(eventTypes2011)) {
		return EventUnknown, false
	}
	return eventTypes2011[v], true
}

// EventTypeFrom2019 maps a 2019 collection_events/instance_events event type
// number (0 SUBMIT, 1 QUEUE, 2 ENABLE, 3 SCHEDULE, 4 EVICT, 5 FAIL, 6 FINISH,
// 7 KILL, 8 LOST, 9 UPDATE_PENDING, 10 UPDATE_RUNNING).
func EventTypeFrom2019(v int64) (EventType, bool) {
	if v < 0 || v > 10 {
		return EventUnknown, false
	}
	return EventType(v + 1), true
}

// MachineEventType is what happened to a machine.
type MachineEventType uint8

// Machine event types (2011 numbers them 0, 1, 2; 2019 numbers them 1, 2, 3).
const (
	MachineUnknown MachineEventType = iota
	MachineAdd                      // added to the cluster
	MachineRemove                   // removed (failure or repair)
	MachineUpdate                   // capacity or attributes changed while not removed
)

// String returns "ADD", "REMOVE" or "UPDATE".
func (t MachineEventType) String() string {
	switch t {
	case MachineAdd:
		return "ADD"
	case MachineRemove:
		return "REMOVE"
	case MachineUpdate:
		return "UPDATE"
	case MachineUnknown:
		return "UNKNOWN"
	}
	return "MachineEventType(" + strconv.Itoa(int(t)) + ")"
}

// MachineEventTypeFrom2011 maps a 2011 machine event type (0 ADD, 1 REMOVE, 2 UPDATE).
func MachineEventTypeFrom2011(v int64) (MachineEventType, bool) {
	if v < 0 || v > 2 {
		return MachineUnknown, false
	}
	return MachineEventType(v + 1), true
}

// MachineEventTypeFrom2019 maps a 2019 machine event type (1 ADD, 2 REMOVE,
// 3 UPDATE; 0 is EVENT_TYPE_UNKNOWN and is rejected).
func MachineEventTypeFrom2019(v int64) (MachineEventType, bool) {
	if v < 1 || v > 3 {
		return MachineUnknown, false
	}
	return MachineEventType(v), true
}

// MissingInfo says why the trace synthesized a record to stand in for data
// it knows is missing. MissingNone means the record was observed directly.
type MissingInfo uint8

// Missing-data reasons. The last two only occur in the 2019 trace.
const (
	MissingNone                   MissingInfo = iota
	MissingSnapshotNoTransition               // SNAPSHOT_BUT_NO_TRANSITION
	MissingNoSnapshotOrTransition             // NO_SNAPSHOT_OR_TRANSITION
	MissingExistsNoCreation                   // EXISTS_BUT_NO_CREATION
	MissingTransitionStep                     // TRANSITION_MISSING_STEP (2019)
	MissingTooManyEvents                      // TOO_MANY_EVENTS (2019)
)

var missingNames = [...]string{
	"NONE", "SNAPSHOT_BUT_NO_TRANSITION", "NO_SNAPSHOT_OR_TRANSITION",
	"EXISTS_BUT_NO_CREATION", "TRANSITION_MISSING_STEP", "TOO_MANY_EVENTS",
}

// String returns the trace documentation's name of the reason.
func (m MissingInfo) String() string {
	if int(m) < len(missingNames) {
		return missingNames[m]
	}
	return "MissingInfo(" + strconv.Itoa(int(m)) + ")"
}

// MissingInfoFrom2011 maps a 2011 missing-info number (0, 1, 2); the 2011
// trace writes an empty field when nothing is missing.
func MissingInfoFrom2011(v int64) (MissingInfo, bool) {
	if v < 0 || v > 2 {
		return MissingNone, false
	}
	return MissingInfo(v + 1), true
}

// MissingInfoFrom2019 maps a 2019 missing_type (0 NONE … 5 TOO_MANY_EVENTS).
func MissingInfoFrom2019(v int64) (MissingInfo, bool) {
	if v < 0 || v > 5 {
		return MissingNone, false
	}
	return MissingInfo(v), true
}

// CollectionType tells jobs from alloc sets (2019). 2011 records are all jobs.
type CollectionType uint8

// Collection types, numbered as in the 2019 trace.
const (
	CollectionJob      CollectionType = 0
	CollectionAllocSet CollectionType = 1
)

// VerticalScaling is a 2019 collection's vertical autoscaling setting,
// numbered as in the trace.
type VerticalScaling uint8

// Vertical scaling settings.
const (
	VerticalScalingUnknown     VerticalScaling = 0
	VerticalScalingOff         VerticalScaling = 1
	VerticalScalingConstrained VerticalScaling = 2
	VerticalScalingAutomated   VerticalScaling = 3
)

// Scheduler is the 2019 collection's preferred cluster scheduler.
type Scheduler uint8

// Schedulers, numbered as in the trace.
const (
	SchedulerDefault Scheduler = 0
	SchedulerBatch   Scheduler = 1
)

// Relation is a 2019 placement constraint's comparison operator, numbered as
// in the trace.
type Relation uint8

// Constraint relations.
const (
	RelationEqual Relation = iota
	RelationNotEqual
	RelationLessThan
	RelationGreaterThan
	RelationLessThanEqual
	RelationGreaterThanEqual
	RelationPresent
	RelationNotPresent
)
