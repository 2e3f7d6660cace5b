package partition

import (
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/core/usage"
	"github.com/paddock-sched/paddock/internal/resource"
)

// SetEventSink installs the function every event record is passed to,
// synchronously and in order; nil turns events off (event.trackingEnabled
// false). A zero Time is for the sink to fill in.
func (p *Partition) SetEventSink(sink func(event.Record)) {
	p.sink = sink
	p.noEvents = sink == nil
	if sink != nil {
		p.users.OnEvent(p.usageEvent)
	} else {
		p.users.OnEvent(nil)
	}
}

func (p *Partition) emit(r event.Record) {
	if p.sink != nil {
		p.sink(r)
	}
}

func (p *Partition) emitApp(c event.Change, d event.Detail, appID, ref, msg string, res resource.Vector, now time.Time) {
	if p.noEvents {
		return
	}
	p.emit(event.Record{Type: event.App, Change: c, Detail: d, ObjectID: appID, ReferenceID: ref, Message: msg, Resource: res, Time: nanos(now)})
}

func (p *Partition) emitQueue(c event.Change, d event.Detail, path, msg string, res resource.Vector, now time.Time) {
	if p.noEvents {
		return
	}
	p.emit(event.Record{Type: event.Queue, Change: c, Detail: d, ObjectID: path, Message: msg, Resource: res, Time: nanos(now)})
}

func (p *Partition) emitRequest(key, appID, msg string, res resource.Vector, now time.Time) {
	if p.noEvents {
		return
	}
	p.emit(event.Record{Type: event.Request, Change: event.None, Detail: event.DetailsNone, ObjectID: key, ReferenceID: appID, Message: msg, Resource: res, Time: nanos(now)})
}

func (p *Partition) emitNode(c event.Change, d event.Detail, nodeID, ref string, res resource.Vector) {
	if p.noEvents {
		return
	}
	p.emit(event.Record{Type: event.Node, Change: c, Detail: d, ObjectID: nodeID, ReferenceID: ref, Resource: res})
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

var stateDetails = map[app.State]event.Detail{
	app.Accepted: event.AppAccepted, app.Running: event.AppRunning, app.Completing: event.AppCompleting,
	app.Completed: event.AppCompleted, app.Failing: event.AppFailing, app.Failed: event.AppFailed,
	app.Resuming: event.AppResuming, app.Expired: event.AppExpired, app.Rejected: event.AppReject,
}

// releaseDetail maps how an allocation ended to its event detail
// (reference §3.2).
var releaseDetail = map[Termination]event.Detail{
	Unknown: event.AllocNodeRemoved, StoppedByRM: event.AllocCancel, Timeout: event.AllocTimeout,
	PreemptedByScheduler: event.AllocPreempt, PlaceholderReplaced: event.AllocReplaced,
	// the SI has no detail of its own for a failed binding: the RM
	// cancelled the allocation
	SchedulingFailedOnRM: event.AllocCancel,
}

// usageEvent turns a user/group tracking event into a USERGROUP record.
func (p *Partition) usageEvent(e usage.Event) {
	var d event.Detail
	switch e.Type {
	case usage.UserResource:
		d = event.UserResource
	case usage.GroupResource:
		d = event.GroupResource
	case usage.UserLimit:
		d = event.UserLimit
	case usage.GroupLimit:
		d = event.GroupLimit
	case usage.AppLink:
		d = event.AppLink
	}
	c := event.None
	switch e.Change {
	case usage.Set:
		c = event.Set
	case usage.Add:
		c = event.Add
	case usage.Remove:
		c = event.Remove
	}
	p.emit(event.Record{Type: event.UserGroup, Change: c, Detail: d, ObjectID: e.ObjectID, ReferenceID: e.ReferenceID, Resource: e.Resource})
}
