package partition

import (
	"log/slog"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/core/usage"
	"github.com/paddock-sched/paddock/internal/resource"
)

// SetEventSink installs the function every event record is passed to,
// synchronously and in order; nil turns events off (event.trackingEnabled
// false). The record is the partition's: the sink copies what it keeps. A
// zero Time is for the sink to fill in (the time it receives the record).
// The first sink installed is told of the queues that exist already (the
// configured tree is built before any sink can be set), as the reference
// reports each queue's creation.
func (p *Partition) SetEventSink(sink func(*event.Record)) {
	p.sink = sink
	p.noEvents = sink == nil
	if sink != nil {
		p.users.OnEvent(p.usageEvent)
		if !p.announced {
			p.announced = true
			p.tree.Each(func(q *queue.Queue) { p.queueEvent(queue.Added, q) })
		}
	} else {
		p.users.OnEvent(nil)
	}
}

// queueChanged logs a queue's creation, removal or change and reports it
// as a queue event (the tree's change hook).
func (p *Partition) queueChanged(k queue.ChangeKind, q *queue.Queue) {
	if l := p.log.Queue; on(l) {
		what := [...]string{"queue added", "queue removed", "queue max changed", "queue guaranteed changed", "queue type changed"}[k]
		debug(l, what, slog.String("queue", q.Path), slog.Bool("managed", q.Managed), slog.Bool("leaf", q.Leaf),
			slog.String("max", p.reg.FormatQuota(q.Max)), slog.String("guaranteed", p.reg.FormatQuota(q.Guaranteed)))
	}
	p.queueEvent(k, q)
}

// queueEvent reports a queue's creation, removal or change as a queue
// event (reference §7).
func (p *Partition) queueEvent(k queue.ChangeKind, q *queue.Queue) {
	if p.noEvents {
		return
	}
	kind := event.QueueDynamic
	if q.Managed {
		kind = event.DetailsNone
	}
	switch k {
	case queue.Added:
		p.emitQueue(event.Add, kind, q.Path, "", resource.Vector{}, time.Time{})
	case queue.Removed:
		p.emitQueue(event.Remove, kind, q.Path, "", resource.Vector{}, time.Time{})
	case queue.MaxChanged:
		p.emitQueue(event.Set, event.QueueMax, q.Path, "", q.Max.Limits(), time.Time{})
	case queue.GuaranteedChanged:
		p.emitQueue(event.Set, event.QueueGuaranteed, q.Path, "", q.Guaranteed.Limits(), time.Time{})
	case queue.TypeChanged:
		msg := "leaf queue: false"
		if q.Leaf {
			msg = "leaf queue: true"
		}
		p.emitQueue(event.Set, event.QueueType, q.Path, msg, resource.Vector{}, time.Time{})
	}
}

// emitApp reports an application event; res is nil for none (a pointer:
// the asks' and allocations' vectors are not copied for the call).
func (p *Partition) emitApp(c event.Change, d event.Detail, appID, ref, msg string, res *resource.Vector, now time.Time) {
	if p.noEvents {
		return
	}
	p.emitWith(event.App, c, d, appID, ref, msg, res, now)
}

// emitWith emits a record of type t about object id; res is nil for none.
// It passes the sink p.rec (a pointer to a local would escape through the
// call: an allocation per event).
func (p *Partition) emitWith(t event.Type, c event.Change, d event.Detail, id, ref, msg string, res *resource.Vector, now time.Time) {
	if p.sink == nil {
		return
	}
	// field by field: a whole-record assignment into the heap copies
	// through the write barrier's bulk path while the collector marks
	r := &p.rec
	r.Type, r.Change, r.Detail, r.Time = t, c, d, nanos(now)
	r.ObjectID, r.ReferenceID, r.Message = id, ref, msg
	if res != nil {
		r.Resource = *res
	} else {
		r.Resource = resource.Vector{}
	}
	p.sink(r)
}

func (p *Partition) emitQueue(c event.Change, d event.Detail, path, msg string, res resource.Vector, now time.Time) {
	if p.noEvents {
		return
	}
	p.emitWith(event.Queue, c, d, path, "", msg, &res, now)
}

// emitQueueApp reports an application joining (Add) or leaving (Remove)
// its leaf queue.
func (p *Partition) emitQueueApp(c event.Change, path, appID string, now time.Time) {
	if p.noEvents {
		return
	}
	p.emitWith(event.Queue, c, event.QueueApp, path, appID, "", nil, now)
}

// rootMaxChanged reports the root queue's new max, the cluster's size,
// after a node changed it by delta (nothing when delta is zero).
func (p *Partition) rootMaxChanged(delta resource.Vector, now time.Time) {
	if p.noEvents || delta.IsZero() {
		return
	}
	p.emitQueue(event.Set, event.QueueMax, p.tree.Root.Path, "", p.cluster, now)
}

// appLeft reports an application leaving its leaf queue: the queue's
// event and the application's removal.
func (p *Partition) appLeft(a *app.App, leaf *queue.Queue, now time.Time) {
	p.emitQueueApp(event.Remove, leaf.Path, a.ID, now)
	p.emitApp(event.Remove, event.DetailsNone, a.ID, "", "", nil, now)
}

// emitRequest sends a request event: the RM shows its message on the
// ask's pod (the Kubernetes shim turns it into a pod event).
func (p *Partition) emitRequest(key, appID, msg string, res resource.Vector, now time.Time) {
	if p.noEvents {
		return
	}
	p.emitWith(event.Request, event.None, event.DetailsNone, key, appID, msg, &res, now)
}

// Node event messages (reference §7); the Kubernetes shim shows the added
// and removed ones as events on the node.
const (
	msgNodeAdded   = "Node added to the scheduler"
	msgNodeRemoved = "Node removed from the scheduler"
)

// emitNode reports a node event; res is nil for none (a pointer, as
// emitApp's).
func (p *Partition) emitNode(c event.Change, d event.Detail, nodeID, ref, msg string, res *resource.Vector, now time.Time) {
	if p.noEvents {
		return
	}
	p.emitWith(event.Node, c, d, nodeID, ref, msg, res, now)
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
func (p *Partition) usageEvent(e *usage.Event) {
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
	p.emitWith(event.UserGroup, c, d, e.ObjectID, e.ReferenceID, "", &e.Resource, p.usageTime)
}

// cannotRun reports a change of whether a limit keeps application a from
// starting: flag is the app's record of it, blocked the present state.
func (p *Partition) cannotRun(a *app.App, flag *bool, blocked bool, d event.Detail, now time.Time) {
	if *flag == blocked {
		return
	}
	*flag = blocked
	p.emitApp(event.None, d, a.ID, "", "", nil, now)
}

// tellQueue sends a request event to every ask of x's class that does not
// fit in its queue's headroom, once until it fits again (reference §7).
func (p *Partition) tellQueue(a *app.App, leaf *queue.Queue, x *app.Allocation, now time.Time) {
	if p.noEvents {
		return
	}
	var head string
	a.Tell(x, app.ToldQueue, func(y *app.Allocation) {
		if head == "" {
			head = "' does not fit in queue '" + leaf.Path + "' (requested " + p.reg.Format(y.Res) +
				", available " + p.reg.FormatQuota(leaf.Headroom()) + ")"
		}
		p.emitRequest(y.Key, a.ID, "Request '"+y.Key+head, y.Res, now)
	})
}

// tellQuota is tellQueue for an ask over its user's or group's quota.
func (p *Partition) tellQuota(a *app.App, x *app.Allocation, now time.Time) {
	if p.noEvents {
		return
	}
	var head string
	a.Tell(x, app.ToldQuota, func(y *app.Allocation) {
		if head == "" {
			head = "' exceeds the available user quota (requested " + p.reg.Format(y.Res) +
				", available " + p.reg.FormatQuota(p.users.Headroom(a.User, a.Group, a.QueuePath)) + ")"
		}
		p.emitRequest(y.Key, a.ID, "Request '"+y.Key+head, y.Res, now)
	})
}

// untell reports to the asks of x's class told reason f that it no longer
// holds them back. It costs nothing when none was told.
func (p *Partition) untell(a *app.App, x *app.Allocation, f app.Told, now time.Time) {
	a.Untell(x, f, func(y *app.Allocation) {
		msg := "Request '" + y.Key + "' fits in the available user quota"
		if f == app.ToldQueue {
			msg = "Request '" + y.Key + "' has become schedulable in queue '" + a.QueuePath + "'"
		}
		p.emitRequest(y.Key, a.ID, msg, y.Res, now)
	})
}
