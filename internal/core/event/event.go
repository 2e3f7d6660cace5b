// Package event owns the scheduler's event records: what happened to an
// application, ask, allocation, node, queue, user or group, in the shape
// (types, change types and details, with the SI's numbering) that the SI
// EventRecord carries to resource managers, the REST event API and the
// event stream.
package event

import "github.com/paddock-sched/paddock/internal/resource"

// Type is the kind of object an event is about.
type Type uint8

// Event types (SI EventRecord.Type).
const (
	Request   Type = 1
	App       Type = 2
	Node      Type = 3
	Queue     Type = 4
	UserGroup Type = 5
)

// Change is what happened to the object.
type Change uint8

// Change types (SI EventRecord.ChangeType).
const (
	None   Change = 0
	Set    Change = 1
	Add    Change = 2
	Remove Change = 3
)

// Detail refines the change (SI EventRecord.ChangeDetail).
type Detail uint16

// Change details.
const (
	DetailsNone       Detail = 0
	RequestCancel     Detail = 100
	RequestAlloc      Detail = 101
	RequestTimeout    Detail = 102
	AppAlloc          Detail = 200
	AppRequest        Detail = 201
	AppReject         Detail = 202
	AppNew            Detail = 203
	AppAccepted       Detail = 204
	AppRunning        Detail = 206
	AppCompleting     Detail = 207
	AppCompleted      Detail = 208
	AppFailing        Detail = 209
	AppFailed         Detail = 210
	AppResuming       Detail = 211
	AppExpired        Detail = 212
	AppCannotRunQueue Detail = 213
	AppRunnableQueue  Detail = 214
	AppCannotRunQuota Detail = 215
	AppRunnableQuota  Detail = 216
	NodeDecommission  Detail = 300
	NodeSchedulable   Detail = 302
	NodeAlloc         Detail = 303
	NodeCapacity      Detail = 304
	NodeOccupied      Detail = 305
	NodeReservation   Detail = 306
	QueueConfig       Detail = 400
	QueueDynamic      Detail = 401
	QueueType         Detail = 402
	QueueMax          Detail = 403
	QueueGuaranteed   Detail = 404
	QueueApp          Detail = 405
	QueueAlloc        Detail = 406
	// QueuePreemption (reference §7 QUEUE_PREEMPTION): a quota-change
	// preemption chose victims; the message summarises it. The SI spec
	// this project implements has no name for it, so it travels as 407.
	QueuePreemption  Detail = 407
	AllocCancel      Detail = 500
	AllocPreempt     Detail = 501
	AllocTimeout     Detail = 502
	AllocReplaced    Detail = 503
	AllocNodeRemoved Detail = 504
	UserLimit        Detail = 600
	GroupLimit       Detail = 601
	AppLink          Detail = 602
	UserResource     Detail = 603
	GroupResource    Detail = 604
)

// Record is one event.
type Record struct {
	Type        Type
	Change      Change
	Detail      Detail
	ObjectID    string
	ReferenceID string
	Message     string
	Resource    resource.Vector
	// Time is in unix nanoseconds.
	Time int64
}
