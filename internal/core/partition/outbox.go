package partition

import (
	"github.com/paddock-sched/paddock/internal/core/app"
)

// Termination says why an allocation ended; the values follow the SI's
// TerminationType.
type Termination uint8

// Terminations.
const (
	Unknown Termination = iota
	StoppedByRM
	Timeout
	PreemptedByScheduler
	PlaceholderReplaced
	// SchedulingFailedOnRM: the RM could not bind the allocation; it goes
	// back to pending (requeue.go) and is never reported back.
	SchedulingFailedOnRM
)

// Released is an allocation or ask the scheduler took away, to be reported
// to the RM.
type Released struct {
	Partition     string
	AppID         string
	AllocationKey string
	Termination   Termination
	Message       string
	// Again marks the release of an allocation whose release the RM was
	// told of already (with its node): it is not counted a second time.
	Again bool
}

// Rejected is a rejected request (application, node or allocation), with the
// reason.
type Rejected struct {
	Partition string
	AppID     string
	ID        string // node ID or allocation key
	Reason    string
}

// AppUpdate reports an application state change.
type AppUpdate struct {
	Partition string
	AppID     string
	State     app.State
	Time      int64 // unix nanoseconds
	Message   string
	// Allocs is how many allocations the outbox held when the change
	// happened: an update that follows an allocation of its application
	// is delivered after the allocations (Running after the allocation
	// that caused it).
	Allocs int
}

// Outbox collects what the scheduler has to tell the RM, in order, until the
// engine's owner drains it.
type Outbox struct {
	// Partition names the partition the messages come from.
	Partition      string
	Allocations    []*app.Allocation
	Released       []Released
	RejectedAllocs []Rejected
	AcceptedApps   []string
	RejectedApps   []Rejected
	AppUpdates     []AppUpdate
	AcceptedNodes  []string
	Waiting        []Waiting
	RejectedNodes  []Rejected
}

// Empty reports whether there is nothing to deliver.
func (o *Outbox) Empty() bool {
	return len(o.Allocations) == 0 && len(o.Released) == 0 && len(o.RejectedAllocs) == 0 &&
		len(o.AcceptedApps) == 0 && len(o.RejectedApps) == 0 && len(o.AppUpdates) == 0 &&
		len(o.AcceptedNodes) == 0 && len(o.RejectedNodes) == 0 && len(o.Waiting) == 0
}

// Placements reports whether the outbox holds allocations or releases:
// changes to what the RM has on its nodes.
func (o *Outbox) Placements() bool {
	return len(o.Allocations) > 0 || len(o.Released) > 0
}

// Take returns the collected messages and leaves the outbox empty.
func (o *Outbox) Take() Outbox {
	out := *o
	*o = Outbox{Partition: o.Partition}
	return out
}

// keptCap is the largest array an outbox keeps for its next messages when
// it is reset: a burst's larger arrays go to the collector.
const keptCap = 4096

// Reset empties the outbox and keeps its arrays (up to keptCap entries
// each) for the messages to come, once the caller has delivered what they
// held and keeps no reference to them.
func (o *Outbox) Reset() {
	reuse(&o.Allocations)
	reuse(&o.Released)
	reuse(&o.RejectedAllocs)
	reuse(&o.AcceptedApps)
	reuse(&o.RejectedApps)
	reuse(&o.AppUpdates)
	reuse(&o.AcceptedNodes)
	reuse(&o.Waiting)
	reuse(&o.RejectedNodes)
}

// reuse empties *s, its entries cleared so that nothing they held stays
// reachable, and drops its array when it is over keptCap. An empty list
// is left as it is: a delivery of one allocation (an RM that settles, one
// per decision) writes one list, where storing all nine slice headers
// would take the collector's write barrier nine times while it marks.
func reuse[T any](s *[]T) {
	switch {
	case len(*s) == 0:
	case cap(*s) > keptCap:
		*s = nil
	default:
		clear(*s)
		*s = (*s)[:0]
	}
}

// Waiting tells the RM that an ask waits for cluster resources: it fits
// its queues and limits but no node (the autoscaling signal).
type Waiting struct {
	AppID, AllocationKey, Reason string
}
