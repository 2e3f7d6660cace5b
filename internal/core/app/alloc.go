package app

import (
	"time"

	"github.com/paddock-sched/paddock/internal/resource"
)

// Allocation is the scheduler's one object for asks and allocations, as in
// the SI: without a node it is a pending ask, with a node it holds
// resources there.
//
// The fields of preemption, gang replacement, bind failures and request
// events are set on few asks: they live in a side struct (rare.go),
// allocated when one of them is first set, and read as zero values while
// it is absent. An ask of the hot path is 352 bytes (it was 528 with
// them inline); rare_test.go keeps it there.
type Allocation struct {
	// The fields intake and a decision touch come first, so that an ask
	// spans fewer cache lines on the hot path.

	Key   string
	AppID string
	// NodeID is "" while the ask is pending.
	NodeID   string
	Res      resource.Vector
	Priority int32
	gen      uint32 // incremented on every enqueue; stale class entries differ
	// Seq orders asks created at the same time by arrival.
	Seq       uint64
	class     *class // the pending class while pending
	joined    uint64 // the class's log tick when the ask joined it
	Created   time.Time
	Allocated time.Time
	// NodeSlot is the allocation's position on its node (owned by the node
	// package), -1 when not on a node.
	NodeSlot int32
	// told holds the pending reasons request events were sent for (told.go).
	told        Told
	Placeholder bool
	Originator  bool
	// PreemptSelf and PreemptOther are the ask's preemption policy.
	PreemptSelf, PreemptOther bool
	// ScaleUp is set once the RM was told the ask waits for cluster
	// resources (the autoscaling signal, reference §2.18).
	ScaleUp bool
	// Forced marks an allocation the RM placed itself (recovery, RM-side
	// binding) or resized in place: it is accounted at any cost, so it may
	// push its node or queues over their limits.
	Forced bool
	// PlaceholderUsed marks an allocation that took a placeholder's place
	// (REST placeholderUsed).
	PlaceholderUsed bool
	// Released is set while a release initiated by the scheduler (placeholder
	// replacement, preemption, timeout) waits for the RM's confirmation.
	Released bool
	// Preempted marks a victim of preemption: the RM was asked to release
	// it with PREEMPTED_BY_SCHEDULER and it holds its resources until the
	// RM confirms (PreemptedFor is the ask it makes room for).
	Preempted bool
	// TriggeredPreemption is set on an ask once it preempted (its victims
	// and the queues it took from are in the side struct; the flag fits in
	// this struct's padding).
	TriggeredPreemption bool
	// InstanceType is the instance type of the node the allocation is on
	// (set by the node package; "" before it is placed).
	InstanceType string
	TaskGroup    string
	RequiredNode string
	Tags         map[string]string
	// Origin is an opaque handle the edge that created the allocation may
	// keep (the RM's original message) until it has delivered the
	// allocation; the core never looks at it.
	Origin any
	// rare holds the fields few asks set (rare.go); nil until one is set.
	rare *rareFields
}

// Pending reports whether the allocation is still an ask waiting to be
// placed (not placed, and not waiting to replace a placeholder).
func (a *Allocation) Pending() bool { return a.NodeID == "" && a.Replacing() == nil }

// Linked reports whether a real ask waits for the RM to confirm the
// release of the placeholder it replaces.
func (a *Allocation) Linked() bool { return a.Replacing() != nil }

// classKey groups asks of one application that are interchangeable for
// scheduling: when one fails to fit, all of its class fail the same way.
type classKey struct {
	res          resource.Vector
	priority     int32
	requiredNode string
	taskGroup    string
	placeholder  bool
}

func keyOf(a *Allocation) classKey {
	return classKey{res: a.Res, priority: a.Priority, requiredNode: a.RequiredNode, taskGroup: a.TaskGroup, placeholder: a.Placeholder}
}

// class is the FIFO of an application's pending asks with one classKey,
// ordered by creation time then arrival.
type class struct {
	key   classKey
	asks  []entry
	head  int
	live  int
	index int // position in the application's class heap, -1 when out
	why   Reason
	// log holds the distinct reasons the class was passed over for (at most
	// MaxLog); tick counts the times.
	log  []logEntry
	tick uint64
	// told counts the live asks marked with each Told reason.
	told [toldKinds]int32
}

// entry is a class member; it is stale once the ask left the class (it was
// removed, allocated, or moved to another class by an update).
type entry struct {
	a   *Allocation
	gen uint32
}

// reset empties a class that has no live ask left, keeping the room of
// its FIFO and log for reuse. Field by field: the key stays, and copying
// the whole struct cost more than the class's short use when an
// application's asks are placed one by one as they come.
func (c *class) reset() {
	clear(c.asks[c.head:]) // the entries before head were cleared as it passed them
	clear(c.log)
	c.asks, c.head, c.live, c.index = c.asks[:0], 0, 0, -1
	c.why, c.log, c.tick, c.told = Reason{}, c.log[:0], 0, [toldKinds]int32{}
}

func (c *class) current(e entry) bool { return e.a.class == c && e.a.gen == e.gen }

// first returns the first live ask, dropping stale entries before it.
func (c *class) first() *Allocation {
	for c.head < len(c.asks) {
		if e := c.asks[c.head]; c.current(e) {
			return e.a
		}
		c.asks[c.head] = entry{}
		c.head++
	}
	return nil
}

// push adds a to the class and reports whether it went first: before every
// live ask of a class that had some.
func (c *class) push(a *Allocation) (first bool) {
	a.gen++
	a.class = c
	a.joined = c.tick
	e := entry{a: a, gen: a.gen}
	// asks usually arrive in creation order; keep the FIFO sorted otherwise
	i := len(c.asks)
	for i > c.head && (!c.current(c.asks[i-1]) || askBefore(a, c.asks[i-1].a)) {
		i--
	}
	first = i == c.head
	if i == len(c.asks) {
		c.asks = append(c.asks, e)
	} else {
		c.asks = append(c.asks, entry{})
		copy(c.asks[i+1:], c.asks[i:])
		c.asks[i] = e
	}
	c.live++
	c.joinTold(a)
	if c.head > 64 && c.head*2 > len(c.asks) {
		n := copy(c.asks, c.asks[c.head:])
		clear(c.asks[n:])
		c.asks = c.asks[:n]
		c.head = 0
	}
	return first
}

// askBefore orders asks by creation time, then arrival.
func askBefore(a, b *Allocation) bool {
	// asks taken in together carry one time: == spares Equal's call
	if a.Created != b.Created && !a.Created.Equal(b.Created) {
		return a.Created.Before(b.Created)
	}
	return a.Seq < b.Seq
}
