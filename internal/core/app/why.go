package app

import "fmt"

// ReasonKind says why a pending ask was not placed in the last pass.
type ReasonKind uint8

// Reasons an ask stays pending (ARCHITECTURE rule 7: typed reasons, not
// errors).
const (
	// NotTried: no pass has looked at the ask yet.
	NotTried ReasonKind = iota
	// QueueMax: placing it would exceed the max of a queue on its path.
	QueueMax
	// MaxApplications: the application may not start because a queue on
	// its path runs its maximum number of applications.
	MaxApplications
	// NoNodeFits: no schedulable node has enough free resources.
	NoNodeFits
	// RequiredNodeUnavailable: the node the ask requires is unknown,
	// draining, reserved or full.
	RequiredNodeUnavailable
	// UserLimit: a user or group limit on the path would be exceeded.
	UserLimit
	// WaitingForGang: the ask waits for its gang's placeholders.
	WaitingForGang
	// Reserved: no node fits now; the ask holds a reservation on a node
	// and gets it as soon as enough is released there.
	Reserved
	// Preempting: victims were preempted for the ask on a node it has
	// reserved; it is placed when the RM has released them.
	Preempting
	// GangDoesNotFit: the application's remaining placeholders do not all
	// fit the cluster (or its queues) now; none is placed until they do.
	GangDoesNotFit
)

var reasonNames = [...]string{"NotTried", "QueueMax", "MaxApplications", "NoNodeFits", "RequiredNodeUnavailable", "UserLimit", "WaitingForGang", "Reserved", "Preempting", "GangDoesNotFit"}

func (k ReasonKind) String() string {
	if int(k) < len(reasonNames) {
		return reasonNames[k]
	}
	return fmt.Sprintf("ReasonKind(%d)", k)
}

// Reason is why an ask is pending: the kind and the object it concerns
// (a queue path or a node ID).
type Reason struct {
	Kind   ReasonKind
	Object string
}

func (r Reason) String() string {
	if r.Object == "" {
		return r.Kind.String()
	}
	return r.Kind.String() + " (" + r.Object + ")"
}

// Why returns the reason the pending ask x was last passed over; all asks
// of one class share it.
func (a *App) Why(x *Allocation) Reason {
	if x.class == nil {
		return Reason{}
	}
	return x.class.why
}

// SetWhy records why the class of pending ask x was passed over.
func (a *App) SetWhy(x *Allocation, r Reason) {
	if x.class != nil {
		x.class.why = r
	}
}

// SetWhyAll records r for every pending class of the application.
func (a *App) SetWhyAll(r Reason) {
	for _, c := range a.classes {
		c.why = r
	}
}

// EachWaiting calls fn, oldest first within a class, for every pending ask
// not yet reported as waiting (ScaleUp unset) whose class's reason
// satisfies waiting. Classes are visited in the app's
// ask order, so the calls are deterministic. Asks are scanned from the
// newest back to the first one already reported, so the cost is in the
// number of new asks, not all asks.
func (a *App) EachWaiting(waiting func(Reason) bool, fn func(x *Allocation)) {
	for _, c := range a.heap {
		if !waiting(c.why) {
			continue
		}
		i := len(c.asks)
		for i > c.head {
			e := c.asks[i-1]
			if c.current(e) && e.a.ScaleUp {
				break
			}
			i--
		}
		for ; i < len(c.asks); i++ {
			if e := c.asks[i]; c.current(e) && !e.a.ScaleUp {
				fn(e.a)
			}
		}
	}
}
