// Package app owns applications: their asks and allocations, the ordering
// of pending asks, and the application state machine. It knows nothing of
// queues or nodes; the partition ties them together.
package app

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/paddock-sched/paddock/internal/core/prio"
	"github.com/paddock-sched/paddock/internal/resource"
)

// App is one application of a partition.
type App struct {
	// The fields the leaf's ordering compares and moves come first, so
	// that a comparison touches one cache line: QueueIndex, SortShare, the
	// Ordered* keys and IDKey (the queue package owns all but IDKey).

	// QueueIndex is the app's position in its leaf queue's ordering and
	// SortShare its fair-share sort key there.
	QueueIndex int
	SortShare  float64
	maxPrio    int32 // prio.Max(), kept here: placing the app reads it
	// OrderedPrio is the priority the leaf's ordering last placed the app
	// by, and OrderedSec, OrderedNsec its submission time then (Unix
	// seconds and nanoseconds: compared as two integers, as
	// time.Time.Before compares instants).
	OrderedPrio int32
	OrderedNsec int32
	// Deferred is set while the scheduling pass skips the app; the queue
	// package owns it.
	Deferred   bool
	OrderedSec int64
	// IDKey packs the ID's first 16 bytes big-endian, zero-padded: two IDs
	// whose keys differ order as their keys do, so most ties of the
	// ordering compare integers, not strings.
	IDKey [2]uint64

	ID         string
	SubmitTime time.Time

	QueuePath string
	// Leaf is the queue package's cache of the leaf queue at QueuePath
	// (queue.Tree.Leaf); nothing else reads or sets it.
	Leaf any
	// Usage is the partition's copy of the usage manager's running entry
	// for the app (*usage.Entry, from usage.Manager.Pending), so that an
	// ask taken in need not look the app up by ID.
	Usage  any
	User   string
	Groups []string
	// Group is the group the app's usage is tracked under ("" none); it is
	// chosen at submission and fixed for the app's lifetime.
	Group string
	Tags  map[string]string
	// GangStyle and PlaceholderAsk describe a gang application.
	PlaceholderAsk resource.Vector
	GangStyle      string
	// ExecutionTimeout is the placeholder timeout (0: default).
	ExecutionTimeout time.Duration

	State      State
	StateLog   []StateChange
	StartTime  time.Time
	FinishTime time.Time
	// Message is the latest reason given with a state change.
	Message string
	// BackoffUntil is when an application whose asks repeatedly fit no
	// node is considered again (application.unschedasks.backoff).
	BackoffUntil time.Time

	// Allocated sums the resources of the app's allocations; Pending the
	// resources of its pending asks.
	Allocated resource.Vector
	Pending   resource.Vector
	// Reported sums the pending asks already reported to the RM as
	// waiting for cluster resources (ScaleUp): they wait for the same
	// room as the asks reported after them.
	Reported resource.Vector
	// MaxAllocated is the high-water mark of Allocated, per resource type:
	// it goes up with allocations and resizes and never down.
	MaxAllocated resource.Vector
	// PlaceholderAllocated sums the allocated placeholders.
	PlaceholderAllocated resource.Vector
	// History sums resource·seconds of the ended allocations.
	History History
	// GangTimedOut is set when the placeholder timeout fired: a Soft gang
	// then schedules its asks normally.
	GangTimedOut bool
	// CannotRunQueue and CannotRunQuota are set while a queue's, or the
	// user's or group's, maxapplications keeps the app from starting, so
	// each change is reported once (reference APP_CANNOTRUN_QUEUE, ...).
	CannotRunQueue, CannotRunQuota bool

	// CountedRunning is set while the app counts in its queues'
	// RunningApps (reference §2.6); the partition owns it.
	CountedRunning bool

	// TaskGroups holds the gang bookkeeping per task group.
	TaskGroups map[string]*TaskGroup
	// phs lists the allocated, unreleased placeholders per task group.
	phs    map[string][]*Allocation
	linked int

	// visited is the time of the latest pass that looked at the app.
	visited time.Time

	all       keyIndex
	allocated int
	pending   int
	classes   map[classKey]*class
	// spare is the last class that emptied, kept for the next new class
	// (an application fed and drained in turns reuses one class)
	spare *class
	// last is the class the latest ask joined (in classes under its key,
	// or nil)
	last     *class
	heap     classHeap
	deferred []*class
	prio     prio.Counts
	seq      uint64
}

// Create returns an application in state New.
func Create(id, user string, groups []string, tags map[string]string, now time.Time) *App {
	return &App{
		ID:         id,
		IDKey:      PackID(id),
		User:       user,
		Groups:     groups,
		Tags:       tags,
		SubmitTime: now,
		QueueIndex: -1,
		all:        newKeyIndex(),
		classes:    map[classKey]*class{},
		maxPrio:    math.MinInt32,
		TaskGroups: map[string]*TaskGroup{},
		phs:        map[string][]*Allocation{},
	}
}

// PackID packs id's first 16 bytes big-endian, zero-padded, for the
// orderings that break ties by ID (App.IDKey, the node index): where two
// IDs' packs differ they order as the IDs do (a shorter ID sorts before
// the longer one it prefixes), so most ties compare integers.
func PackID(id string) [2]uint64 {
	var b [16]byte
	copy(b[:], id)
	return [2]uint64{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

// Allocation returns the ask or allocation with the given key.
func (a *App) Allocation(key string) (*Allocation, bool) {
	return a.Find(key, HashKey(key))
}

// Find is Allocation for a key whose HashKey the caller has: h.
func (a *App) Find(key string, h uint64) (*Allocation, bool) {
	x := a.all.find(key, h)
	return x, x != nil
}

// PendingCount is the number of pending asks; AllocatedCount the number of
// allocations.
func (a *App) PendingCount() int   { return a.pending }
func (a *App) AllocatedCount() int { return a.allocated }

// Each calls fn for every ask and allocation of the app, in no particular
// order, until fn returns false. fn must not add or remove any.
func (a *App) Each(fn func(*Allocation) bool) { a.all.each(fn) }

// Priority is the highest priority among the pending asks, or MinInt32.
func (a *App) Priority() int32 { return a.maxPrio }

// checkRes rejects an empty or negative r; it returns r's support.
func checkRes(key string, r *resource.Vector) (resource.Mask, error) {
	m := r.Support()
	if r.NegativeOn(m) {
		return 0, fmt.Errorf("allocation %s: negative resource %v", key, *r)
	}
	if m == 0 {
		return 0, fmt.Errorf("allocation %s: empty resource", key)
	}
	return m, nil
}

// AddAsk adds a pending ask (x.NodeID must be ""). Duplicate keys and empty
// or negative resources are rejected and change nothing.
func (a *App) AddAsk(x *Allocation) error {
	h := HashKey(x.Key)
	if x.NodeID == "" && a.all.find(x.Key, h) != nil {
		return fmt.Errorf("allocation %s: duplicate key in application %s", x.Key, a.ID)
	}
	return a.AddNewAsk(x, h)
}

// AddNewAsk is AddAsk for an ask whose key, of HashKey h, the caller found
// unknown to the application (Find): it does not look the key up again.
func (a *App) AddNewAsk(x *Allocation, h uint64) error {
	if x.NodeID != "" {
		return fmt.Errorf("allocation %s: ask has a node", x.Key)
	}
	m, err := checkRes(x.Key, &x.Res)
	if err != nil {
		return err
	}
	x.AppID = a.ID
	a.seq++
	x.Seq = a.seq
	if x.Created.Before(a.SubmitTime) && !x.Created.IsZero() {
		a.SubmitTime = x.Created
	}
	a.all.add(x, h)
	a.enqueueOn(x, m)
	if x.Placeholder && x.TaskGroup != "" {
		tg := a.taskGroup(x.TaskGroup)
		tg.Count++
		tg.MinResource = x.Res
	}
	return nil
}

func (a *App) enqueue(x *Allocation) { a.enqueueOn(x, x.Res.Support()) }

// enqueueOn is enqueue for an ask whose resources' support is m.
func (a *App) enqueueOn(x *Allocation, m resource.Mask) {
	// asks of one shape come in runs: compare with the last class, in
	// place, before building and hashing the key
	c := a.last
	if c == nil || !c.key.holds(x) {
		k := keyOf(x)
		c = a.classes[k]
		switch {
		case c == nil && a.spare != nil:
			c, a.spare = a.spare, nil
			delete(a.classes, c.key)
			c.key = k
			a.classes[k] = c
		case c == nil:
			c = &class{key: k, index: -1}
			a.classes[k] = c
		}
	}
	if c == a.spare {
		a.spare = nil
	}
	a.last = c
	wasEmpty := c.live == 0
	first := c.push(x)
	switch {
	case wasEmpty:
		a.heap.push(c)
	case first && c.index >= 0:
		a.heap.fix(c.index) // a new head: the class's place may change
	}
	a.pending++
	a.Pending.IncOn(&x.Res, m)
	if x.ScaleUp {
		a.Reported.IncOn(&x.Res, m)
	}
	a.prio.Add(x.Priority, 1)
	a.maxPrio = a.prio.Max()
}

// holds reports whether x's class key is k (keyOf(x) == *k, without
// building it).
func (k *classKey) holds(x *Allocation) bool {
	return k.priority == x.Priority && k.res == x.Res && k.requiredNode == x.RequiredNode &&
		k.taskGroup == x.TaskGroup && k.placeholder == x.Placeholder
}

// dequeue takes a pending ask out of its class.
func (a *App) dequeue(x *Allocation) { a.dequeueOn(x, x.Res.Support()) }

// dequeueOn is dequeue for an ask whose resources' support is m.
func (a *App) dequeueOn(x *Allocation, m resource.Mask) {
	c := x.class
	head := c.first() == x
	c.leaveTold(x)
	x.class = nil // makes its entry stale
	if head {
		c.asks[c.head] = entry{}
		c.head++
	}
	c.live--
	if c.live == 0 {
		a.heap.remove(c)
		a.dropDeferred(c)
		if a.spare != nil {
			delete(a.classes, a.spare.key)
			if a.last == a.spare {
				a.last = nil
			}
		}
		c.reset()
		a.spare = c
	} else if head && c.index >= 0 {
		a.heap.fix(c.index)
	}
	a.pending--
	a.Pending.DecOn(&x.Res, m)
	if x.ScaleUp {
		a.Reported.DecOn(&x.Res, m)
	}
	a.prio.Add(x.Priority, -1)
	a.maxPrio = a.prio.Max()
}

func (a *App) dropDeferred(c *class) {
	for i, d := range a.deferred {
		if d == c {
			a.deferred[i] = a.deferred[len(a.deferred)-1]
			a.deferred = a.deferred[:len(a.deferred)-1]
			return
		}
	}
}

// UpdateAsk changes the resources of a pending ask in place; for an
// allocation it changes the allocated resources (in-place resize). It
// returns the resource delta.
func (a *App) UpdateAsk(key string, res resource.Vector) (resource.Vector, error) {
	x, ok := a.Allocation(key)
	if !ok {
		return resource.Vector{}, fmt.Errorf("allocation %s: unknown in application %s", key, a.ID)
	}
	if _, err := checkRes(key, &res); err != nil {
		return resource.Vector{}, err
	}
	delta := res.Sub(x.Res)
	if x.Pending() {
		a.dequeue(x)
		x.Res = res
		a.enqueue(x)
		return delta, nil
	}
	x.Res = res
	a.Allocated.Inc(delta)
	a.MaxAllocated = a.MaxAllocated.Max(a.Allocated)
	if x.Placeholder {
		a.PlaceholderAllocated.Inc(delta)
	}
	return delta, nil
}

// Remove drops an ask or allocation at now and returns it; an allocation
// adds what it held since it was bound to the History.
func (a *App) Remove(key string, now time.Time) (*Allocation, bool) {
	h := HashKey(key)
	x, ok := a.Find(key, h)
	if !ok {
		return nil, false
	}
	a.all.remove(x, h)
	if x.Linked() {
		a.linked--
		link(x, nil)
		return x, true
	}
	if x.Pending() {
		a.dequeue(x)
		return x, true
	}
	a.unaccount(x, now)
	return x, true
}

// AddAllocation adds an allocation that already has a node (recovery or an
// RM-side binding).
func (a *App) AddAllocation(x *Allocation) error {
	if x.NodeID == "" {
		return fmt.Errorf("allocation %s: no node", x.Key)
	}
	h := HashKey(x.Key)
	if a.all.find(x.Key, h) != nil {
		return fmt.Errorf("allocation %s: duplicate key in application %s", x.Key, a.ID)
	}
	if _, err := checkRes(x.Key, &x.Res); err != nil {
		return err
	}
	x.AppID = a.ID
	x.unbind() // it holds its resources from its Allocated time
	if x.Created.Before(a.SubmitTime) && !x.Created.IsZero() {
		a.SubmitTime = x.Created // a recovered allocation counts in fifo order
	}
	a.all.add(x, h)
	a.account(x)
	return nil
}

func (a *App) account(x *Allocation) { a.accountOn(x, x.Res.Support()) }

// accountOn is account for an allocation whose resources' support is m.
func (a *App) accountOn(x *Allocation, m resource.Mask) {
	if x.Placeholder && x.TaskGroup != "" && !x.Released {
		a.phs[x.TaskGroup] = append(a.phs[x.TaskGroup], x)
	}
	a.allocated++
	// only the types of the allocation change, so only they can raise
	// the maximum
	a.Allocated.IncOn(&x.Res, m)
	a.MaxAllocated.MaxOn(&a.Allocated, m)
	if x.Placeholder {
		a.PlaceholderAllocated.IncOn(&x.Res, m)
	}
}

// unaccount undoes account for an allocation that stops holding its
// resources at now; what it held since it was bound goes to the History.
func (a *App) unaccount(x *Allocation, now time.Time) {
	a.dropPlaceholder(x)
	a.ended(x, now)
	a.allocated--
	a.Allocated.Dec(x.Res)
	if x.Placeholder {
		a.PlaceholderAllocated.Dec(x.Res)
	}
}

// Allocate turns pending ask x into an allocation on node at time now.
func (a *App) Allocate(x *Allocation, node string, now time.Time) {
	a.AllocateOn(x, node, x.Res.Support(), now)
}

// AllocateOn is Allocate for an ask whose resources' support the caller
// has: m, which must be x.Res.Support().
func (a *App) AllocateOn(x *Allocation, node string, m resource.Mask, now time.Time) {
	a.dequeueOn(x, m)
	x.NodeID = node
	x.Allocated = now
	x.unbind()
	x.SetAvoid("")
	a.accountOn(x, m)
}

// Requeue turns allocation x back into a pending ask at now, under its key
// and with all its properties (the RM could not bind it): what it held
// since it was bound goes to the History, and it rejoins the pending asks
// in its creation-time place. The caller takes it off its node first. A
// pending ask, or a real ask waiting for a placeholder swap, is an error.
func (a *App) Requeue(x *Allocation, now time.Time) error {
	if y, _ := a.Allocation(x.Key); y != x {
		return fmt.Errorf("allocation %s: unknown in application %s", x.Key, a.ID)
	}
	if x.Pending() || x.Linked() {
		return fmt.Errorf("allocation %s: not allocated", x.Key)
	}
	a.unaccount(x, now)
	x.NodeID = ""
	x.InstanceType = ""
	x.Allocated = time.Time{}
	x.unbind()
	x.Forced = false
	x.ScaleUp = false
	a.enqueue(x)
	return nil
}

// Next returns the first pending ask of the first class not deferred in
// this pass, or nil.
func (a *App) Next() *Allocation {
	if len(a.heap) == 0 {
		return nil
	}
	return a.heap[0].first()
}

// Defer takes x's class out of consideration until EndPass: its asks
// cannot be placed in this pass.
func (a *App) Defer(x *Allocation) {
	c := x.class
	if c == nil || c.index < 0 {
		return
	}
	a.heap.remove(c)
	a.deferred = append(a.deferred, c)
}

// EndPass puts every deferred class back.
func (a *App) EndPass() {
	for _, c := range a.deferred {
		a.heap.push(c)
	}
	clear(a.deferred)
	a.deferred = a.deferred[:0]
}
