package app

import (
	"fmt"
	"slices"
	"time"
)

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

// MaxLog bounds the allocation log of an ask: the distinct reasons it was
// passed over for, the least recently seen evicted first.
const MaxLog = 10

// LogEntry is one distinct reason of an ask's allocation log: how many
// times a pass gave it and when last.
type LogEntry struct {
	Reason Reason
	Count  uint64
	Last   time.Time
}

// logEntry is a class's log entry; first and last are the class ticks of
// its first and latest occurrence.
type logEntry struct {
	LogEntry
	first, last uint64
}

// note logs one occurrence of r at now. A repeated reason costs a compare
// per entry and no allocation.
func (c *class) note(r Reason, now time.Time) {
	c.tick++
	for i := range c.log {
		if e := &c.log[i]; e.Reason == r {
			e.Count++
			e.Last = now
			e.last = c.tick
			return
		}
	}
	e := logEntry{LogEntry: LogEntry{Reason: r, Count: 1, Last: now}, first: c.tick, last: c.tick}
	if len(c.log) < MaxLog {
		c.log = append(c.log, e)
		return
	}
	oldest := 0
	for i := range c.log {
		if c.log[i].last < c.log[oldest].last {
			oldest = i
		}
	}
	c.log[oldest] = e
}

// Visit records that the scheduling pass at now looks at the application:
// reasons set until the next visit are logged at now.
func (a *App) Visit(now time.Time) { a.visited = now }

// Why returns the reason the pending ask x was last passed over; all asks
// of one class share it.
func (a *App) Why(x *Allocation) Reason {
	if x.class == nil {
		return Reason{}
	}
	return x.class.why
}

// SetWhy records why the class of pending ask x was passed over, and logs
// it.
func (a *App) SetWhy(x *Allocation, r Reason) {
	if x.class != nil {
		x.class.why = r
		x.class.note(r, a.visited)
	}
}

// SetWhyAll records and logs r for every pending class of the application.
func (a *App) SetWhyAll(r Reason) {
	for _, c := range a.classes {
		if c.live == 0 {
			continue // the spare
		}
		c.why = r
		c.note(r, a.visited)
	}
}

// Log returns the allocation log of pending ask x, the latest occurrence
// first. The asks of a class are passed over together, so they share one
// log; an ask sees only what happened after it joined its class. A count
// is exact unless the class's reason alternated since the ask joined, when
// it is bounded by the passes since then.
func (a *App) Log(x *Allocation) []LogEntry { return a.AppendLog(nil, x) }

// AppendLog appends the allocation log of pending ask x (as Log) to dst,
// so many asks' logs can share one block.
func (a *App) AppendLog(dst []LogEntry, x *Allocation) []LogEntry {
	c := x.class
	if c == nil {
		return dst
	}
	start := len(dst)
	out := dst
	for _, e := range c.log {
		if e.last <= x.joined {
			continue // all before the ask joined
		}
		n := e.Count
		if e.first <= x.joined {
			n = min(n, c.tick-x.joined)
		}
		out = append(out, LogEntry{Reason: e.Reason, Count: n, Last: e.Last})
	}
	slices.SortStableFunc(out[start:], func(p, q LogEntry) int { return q.Last.Compare(p.Last) })
	return out
}

// ReportWaiting marks pending ask x as reported to the RM as waiting for
// cluster resources.
func (a *App) ReportWaiting(x *Allocation) {
	if x.ScaleUp || !x.Pending() {
		return
	}
	x.ScaleUp = true
	a.Reported.Inc(x.Res)
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
