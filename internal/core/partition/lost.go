package partition

import (
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
)

// LostLifetime is how long the partition remembers an allocation released
// with its node (RemoveNode) for the RM's report that it could not bind it
// (Requeue). It covers the longest an RM takes to give up a binding: the
// Kubernetes shim retries assuming the pod for about 30 s, then binding
// its volumes and the pod for about 2 minutes each. Only allocations made
// less than LostLifetime before the removal are remembered: an older one
// was bound, or reported as failed, long ago.
const LostLifetime = 5 * time.Minute

// MaxLost is how many such allocations a partition remembers at most; past
// it the oldest record is forgotten first.
const MaxLost = 10_000

// lostAsk is what the partition keeps of an allocation released with its
// node: the ask it was (its key, application, resources, priority,
// creation time, tags, task group, required node, placeholder, originator
// and preemption flags), to be placed again when the RM reports that it
// could not bind it (docs/reliability.md).
type lostAsk struct {
	ask     app.Allocation
	node    string // the node that was removed
	expires time.Time
	gone    bool // taken or dropped: its place in the FIFO is stale
}

// lostAsks is the partition's bounded, short-lived record of allocations
// released with their node, by application and key, and in the order they
// were recorded (their expiry order).
type lostAsks struct {
	byApp map[string]map[string]*lostAsk
	fifo  []*lostAsk
	head  int
	n     int // live records
	limit int // MaxLost; tests lower it
	// evicted counts the records forgotten before their time because the
	// record was full.
	evicted uint64
}

func (l *lostAsks) find(appID, key string) *lostAsk {
	if l.n == 0 {
		return nil
	}
	return l.byApp[appID][key]
}

// add records r, replacing a record of the same key; when the record is
// full the oldest goes first.
func (l *lostAsks) add(r *lostAsk) {
	if l.limit == 0 {
		l.limit = MaxLost
	}
	l.drop(r.ask.AppID, r.ask.Key)
	for l.n >= l.limit {
		old := l.pop()
		l.drop(old.ask.AppID, old.ask.Key)
		l.evicted++
	}
	if l.byApp == nil {
		l.byApp = map[string]map[string]*lostAsk{}
	}
	keys := l.byApp[r.ask.AppID]
	if keys == nil {
		keys = map[string]*lostAsk{}
		l.byApp[r.ask.AppID] = keys
	}
	keys[r.ask.Key] = r
	l.n++
	// stale entries are squeezed out once they are as many as the live
	// ones: the FIFO stays within twice the limit
	if size := len(l.fifo) - l.head; size >= 2*l.limit {
		l.compact()
	}
	l.fifo = append(l.fifo, r)
}

// pop returns the oldest live record, which stays recorded; the caller
// drops it. The record must not be empty.
func (l *lostAsks) pop() *lostAsk {
	for {
		r := l.fifo[l.head]
		l.fifo[l.head] = nil
		l.head++
		if !r.gone {
			return r
		}
	}
}

func (l *lostAsks) compact() {
	out := l.fifo[:0]
	for _, r := range l.fifo[l.head:] {
		if r != nil && !r.gone {
			out = append(out, r)
		}
	}
	clear(l.fifo[len(out):])
	l.fifo, l.head = out, 0
}

// take removes and returns the live record of key, nil when there is none
// or it expired at now.
func (l *lostAsks) take(appID, key string, now time.Time) *lostAsk {
	r := l.find(appID, key)
	if r == nil {
		return nil
	}
	l.drop(appID, key)
	if !now.Before(r.expires) {
		return nil
	}
	return r
}

// drop forgets the record of key, if any.
func (l *lostAsks) drop(appID, key string) {
	r := l.find(appID, key)
	if r == nil {
		return
	}
	r.gone = true
	keys := l.byApp[appID]
	delete(keys, key)
	if len(keys) == 0 {
		delete(l.byApp, appID)
	}
	l.n--
	if l.n == 0 {
		// nothing live: the FIFO holds only stale entries
		clear(l.fifo)
		l.fifo, l.head = l.fifo[:0], 0
	}
}

// dropApp forgets every record of an application.
func (l *lostAsks) dropApp(appID string) {
	if l.n == 0 {
		return
	}
	for key := range l.byApp[appID] {
		l.drop(appID, key)
	}
}

// expire forgets the records whose time is over at now.
func (l *lostAsks) expire(now time.Time) {
	for l.n > 0 {
		r := l.fifo[l.head]
		if r.gone {
			l.fifo[l.head] = nil
			l.head++
			continue
		}
		if now.Before(r.expires) {
			return
		}
		l.drop(r.ask.AppID, r.ask.Key)
	}
}

// latest returns the latest expiry of an application's records, zero for
// none.
func (l *lostAsks) latest(appID string) time.Time {
	var t time.Time
	if l.n == 0 {
		return t
	}
	for _, r := range l.byApp[appID] {
		if r.expires.After(t) {
			t = r.expires
		}
	}
	return t
}

// rememberLost records allocation x of a, released with its node at now,
// for the RM's report that it could not bind it. An allocation the
// scheduler was already taking away (a placeholder being replaced or timed
// out, a preemption victim), one the RM placed or resized itself (it is
// bound), and one made LostLifetime or longer ago are not recorded.
func (p *Partition) rememberLost(x *app.Allocation, node string, now time.Time) {
	if x.Released || x.Preempted || x.Forced || x.Linked() || x.ReplacedBy() != nil {
		return
	}
	if !x.Allocated.IsZero() && now.Sub(x.Allocated) >= LostLifetime {
		return
	}
	p.lost.add(&lostAsk{
		ask: app.Allocation{
			Key: x.Key, AppID: x.AppID, Res: x.Res, Priority: x.Priority, Created: x.Created, Tags: x.Tags,
			TaskGroup: x.TaskGroup, RequiredNode: x.RequiredNode, Placeholder: x.Placeholder,
			Originator: x.Originator, PreemptSelf: x.PreemptSelf, PreemptOther: x.PreemptOther,
		},
		node: node, expires: now.Add(LostLifetime),
	})
}

// ForgetLost forgets what the partition remembers of key of application
// appID (all of the application's keys when key is ""), released with its
// node: the RM released it, so it will not report a failed binding of it.
func (p *Partition) ForgetLost(appID, key string) {
	if p.lost.n == 0 {
		return
	}
	if key == "" {
		p.lost.dropApp(appID)
		return
	}
	p.lost.drop(appID, key)
}

// Lost reports whether the partition remembers key of application appID
// as released with its node at now, and that node.
func (p *Partition) Lost(appID, key string, now time.Time) (node string, ok bool) {
	r := p.lost.find(appID, key)
	if r == nil || !now.Before(r.expires) {
		return "", false
	}
	return r.node, true
}

// LostCount is how many allocations released with their node the
// partition remembers, and how many it forgot early because the record
// was full.
func (p *Partition) LostCount() (live int, evicted uint64) { return p.lost.n, p.lost.evicted }

// verifyLost checks the record of allocations released with their node:
// each is of a live application that does not know its key, counted once,
// and in the FIFO; the FIFO holds at most twice the limit.
func (p *Partition) verifyLost(bad func(string, ...any)) {
	l := &p.lost
	n := 0
	for appID, keys := range l.byApp {
		a, ok := p.apps[appID]
		if !ok {
			bad("lost allocations of application %s, which is not live", appID)
		}
		if len(keys) == 0 {
			bad("an empty record of lost allocations of application %s", appID)
		}
		for key, r := range keys {
			n++
			if r.gone || r.ask.AppID != appID || r.ask.Key != key {
				bad("lost allocation %s/%s: recorded as %s/%s, gone %v", appID, key, r.ask.AppID, r.ask.Key, r.gone)
			}
			if ok {
				if _, known := a.Allocation(key); known {
					bad("lost allocation %s/%s: the application has the key", appID, key)
				}
			}
		}
	}
	live := 0
	for _, r := range l.fifo[l.head:] {
		if r != nil && !r.gone {
			live++
		}
	}
	limit := l.limit
	if limit == 0 {
		limit = MaxLost
	}
	if n != l.n || live != l.n || n > limit {
		bad("%d lost allocations counted, %d recorded, %d in the FIFO (limit %d)", l.n, n, live, limit)
	}
	if len(l.fifo)-l.head > 2*limit {
		bad("the FIFO of lost allocations holds %d entries, over twice the limit %d", len(l.fifo)-l.head, limit)
	}
}
