package partition

import (
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/core/latency"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/resource"
)

// BatchCheck is how many allocations a pass makes between two calls of
// the batch function (SetBatch).
const BatchCheck = 32

// maxFailedShapes bounds the per-pass memo of ask shapes that fit no node.
const maxFailedShapes = 32

// pass is the state of one scheduling pass. Within a pass nodes only fill
// up and headroom only shrinks, so a shape that fit nowhere stays
// unplaceable until the pass ends.
type pass struct {
	failed   []resource.Vector
	deferred []*app.App // applications with deferred ask classes
	// unplaced counts, per application, the asks that fit no node in this
	// pass (for application.unschedasks.backoff)
	unplaced map[*app.App]uint64
	// preemptAttempts counts the preemption attempts of the pass.
	preemptAttempts int
	// sinceBatch counts the allocations since the batch function last ran.
	sinceBatch int
	// yield is set when the batch function ended the pass.
	yield bool
	// now is the pass's time; heldBack is set when the pacer ended it
	// (pace.go)
	now      time.Time
	heldBack bool
}

// placed counts n allocations of the pass, calls the placement function
// after them when they are any (SetOnPlaced) and the batch function every
// BatchCheck of them; every decision so far is applied.
func (p *Partition) placed(s *pass, n int) {
	p.took(s.now, n)
	if p.onPlaced != nil && n > 0 {
		p.onPlaced()
	}
	if p.batch == nil {
		return
	}
	s.sinceBatch += n
	if s.sinceBatch >= BatchCheck {
		s.sinceBatch = 0
		if p.batch() {
			s.yield = true
		}
	}
}

func (s *pass) knownUnplaceable(r *resource.Vector) bool {
	for i := range s.failed {
		if s.failed[i].Fits(*r) { // r is at least as large as a failed shape
			return true
		}
	}
	return false
}

func (s *pass) remember(r resource.Vector) {
	if len(s.failed) < maxFailedShapes {
		s.failed = append(s.failed, r)
	}
}

// Schedule runs one scheduling pass at time now if anything changed since
// the last one, and returns the number of allocations it made. Unlike the
// reference, which makes one allocation per pass, a pass allocates
// everything it can: after every allocation it returns to the root and
// walks the orderings again, so fairness is re-evaluated per decision.
func (p *Partition) Schedule(now time.Time) int {
	if !p.retryAt.IsZero() && !now.Before(p.retryAt) {
		p.retryAt = time.Time{}
		p.dirty = true
	}
	if !p.dirty {
		return 0
	}
	p.dirty = false
	if p.sizeDirty {
		p.sizeDirty = false
		p.tree.SetCluster(p.cluster)
	}
	p.Stats.Passes++
	p.rmAway = false
	s := pass{now: now}
	made := 0
	if len(p.reserved) > 0 {
		made += p.tryReserved(now)
		p.took(now, made)
	}
	t := p.tree
	lat := p.latency
	for !s.yield && !p.rmAway {
		start := lat.Start(latency.QueueSort)
		leaf := p.descend()
		lat.Stop(latency.QueueSort, start)
		if leaf == nil {
			break
		}
		start = lat.Start(latency.AppSort)
		a := leaf.TopApp()
		lat.Stop(latency.AppSort, start)
		if a == nil {
			t.Skip(leaf)
			continue
		}
		a.Visit(now)
		if q := p.blockingMaxApps(a, leaf); q != nil {
			a.SetWhyAll(app.Reason{Kind: app.MaxApplications, Object: q.Path})
			p.cannotRun(a, &a.CannotRunQueue, true, event.AppCannotRunQueue, now)
			t.SkipApp(leaf, a)
			continue
		}
		p.cannotRun(a, &a.CannotRunQueue, false, event.AppRunnableQueue, now)
		if !a.BackoffUntil.IsZero() && now.Before(a.BackoffUntil) {
			p.wakeAt(a.BackoffUntil)
			t.SkipApp(leaf, a)
			continue
		}
		if !a.CountedRunning {
			if ok, why := p.users.CanRunApp(a.User, a.Group, a.QueuePath, a.ID); !ok {
				a.SetWhyAll(app.Reason{Kind: app.UserLimit, Object: why})
				p.cannotRun(a, &a.CannotRunQuota, true, event.AppCannotRunQuota, now)
				t.SkipApp(leaf, a)
				continue
			}
		}
		p.cannotRun(a, &a.CannotRunQuota, false, event.AppRunnableQuota, now)
		x := a.Next()
		if x == nil {
			t.SkipApp(leaf, a)
			continue
		}
		if x.TaskGroup != "" && !x.Placeholder && p.replace(a, leaf, x, now) {
			continue
		}
		if !x.Placeholder && waitsForGang(a) {
			a.SetWhy(x, app.Reason{Kind: app.WaitingForGang})
			p.deferAsk(&s, a, x)
			continue
		}
		if x.Placeholder {
			if p.paced(now) {
				s.heldBack = true
				break
			}
			phs, sum := pendingPlaceholders(a)
			n, why := p.placeGang(a, leaf, phs, sum, now)
			made += n
			p.placed(&s, n)
			if n == 0 {
				// the placeholder timeout runs while the gang waits for
				// room, so a gang that never fits resumes or fails
				p.startGangTimer(a, now)
				if why.Kind == app.UserLimit || !p.tryGangPreempt(&s, a, leaf, phs, sum, now) {
					a.SetWhyAll(why)
				}
				t.SkipApp(leaf, a)
			}
			continue
		}
		if x.Victims() > 0 {
			if r, has := p.reserved[reservationKey(a.ID, x.Key)]; has {
				// a preempting ask waits for its victims' node, which it
				// holds (tryReserved places it there once they are gone);
				// meanwhile it takes any node that fits it first, as the
				// reference's tryReservedAllocate tries the other nodes:
				// a victim may take long to go, or never
				if n := p.elsewhere(a, leaf, x); n != nil {
					p.allocate(a, leaf, x, n, now)
					made++
					p.placed(&s, 1)
					continue
				}
				a.SetWhy(x, app.Reason{Kind: app.Preempting, Object: r.node.ID})
				p.deferAsk(&s, a, x)
				continue
			}
		}
		if !p.users.AllowsAs(usageEntry(a), a.User, a.Group, a.QueuePath, a.ID, &x.Res) {
			a.SetWhy(x, app.Reason{Kind: app.UserLimit, Object: a.User})
			p.tellQuota(a, x, now)
			p.deferAsk(&s, a, x)
			continue
		}
		p.untell(a, x, app.ToldQuota, now)
		if q := blockingMax(leaf, &x.Res); q != nil {
			if !p.tryPreempt(&s, a, leaf, x, now) {
				a.SetWhy(x, app.Reason{Kind: app.QueueMax, Object: q.Path})
				p.tellQueue(a, leaf, x, now)
			}
			p.deferAsk(&s, a, x)
			continue
		}
		p.untell(a, x, app.ToldQueue, now)
		if s.knownUnplaceable(&x.Res) {
			if !p.tryPreempt(&s, a, leaf, x, now) {
				a.SetWhy(x, app.Reason{Kind: app.NoNodeFits})
			}
			p.deferAsk(&s, a, x)
			if p.backoff(&s, a, leaf, now) {
				t.SkipApp(leaf, a)
			}
			continue
		}
		if p.paced(now) {
			s.heldBack = true
			break
		}
		if len(p.vetoes) > 0 {
			clear(p.vetoes) // refusals other searches left: not x's
		}
		start = lat.Start(latency.NodeEvaluation)
		n := p.findNode(x)
		lat.Stop(latency.NodeEvaluation, start)
		if p.rmAway {
			// the RM could not be asked: x stays as it was (away.go)
			clear(p.vetoes)
			break
		}
		if len(p.vetoes) > 0 {
			if n == nil {
				p.tellVetoes(a, x, now)
			}
			clear(p.vetoes)
		}
		if n == nil {
			if p.backoff(&s, a, leaf, now) {
				t.SkipApp(leaf, a)
			}
			if x.RequiredNode == "" {
				s.remember(x.Res)
				if p.tryPreempt(&s, a, leaf, x, now) {
					p.deferAsk(&s, a, x)
					continue
				}
				if !p.maybeReserve(a, x, now) {
					if _, has := p.reserved[reservationKey(a.ID, x.Key)]; !has {
						a.SetWhy(x, app.Reason{Kind: app.NoNodeFits})
					}
				}
			} else if !p.tryRequiredNodePreempt(a, x, now) && !p.reserveRequired(a, x) {
				a.SetWhy(x, app.Reason{Kind: app.RequiredNodeUnavailable, Object: x.RequiredNode})
			}
			p.deferAsk(&s, a, x)
			continue
		}
		p.allocate(a, leaf, x, n, now)
		made++
		p.placed(&s, 1)
	}
	if s.yield {
		// ended by the batch function with asks maybe left to place
		p.dirty = true
		p.Stats.Yields++
	}
	t.EndPass()
	for _, a := range s.deferred {
		a.EndPass()
	}
	switch {
	case p.rmAway:
		p.awayEnds(now)
	case !s.heldBack:
		// asks the pacer held back were not looked at: the report waits
		// for a pass that looks at every ask
		p.reportWaiting(now)
	}
	p.Stats.Allocations += uint64(made)
	return made
}

// elsewhere returns a node preempting ask x of a, in leaf, fits now
// within its user's and queues' limits, or nil. Its victims keep their
// room until the RM confirms them, so its own reserved node does not fit
// it before that.
func (p *Partition) elsewhere(a *app.App, leaf *queue.Queue, x *app.Allocation) *node.Node {
	if !p.users.AllowsAs(usageEntry(a), a.User, a.Group, a.QueuePath, a.ID, &x.Res) || blockingMax(leaf, &x.Res) != nil {
		return nil
	}
	n := p.findNode(x)
	if len(p.vetoes) > 0 {
		clear(p.vetoes)
	}
	return n
}

func (p *Partition) deferAsk(s *pass, a *app.App, x *app.Allocation) {
	a.Defer(x)
	s.deferred = append(s.deferred, a)
}

// descend walks from the root to the leaf the pass should serve next,
// skipping parents whose children are all exhausted. It returns nil when
// nothing in the tree can be served.
func (p *Partition) descend() *queue.Queue {
	t := p.tree
	q := t.Root
	for !q.Leaf {
		c := q.TopChild()
		if c == nil {
			if q == t.Root {
				return nil
			}
			t.Skip(q)
			q = t.Root
			continue
		}
		q = c
	}
	if q == t.Root {
		return nil
	}
	return q
}

// blockingMaxApps returns the queue whose maxapplications stops the
// application from starting, or nil when it is running already or may
// start (reference §2.6).
func (p *Partition) blockingMaxApps(a *app.App, leaf *queue.Queue) *queue.Queue {
	if a.CountedRunning {
		return nil
	}
	for q := leaf; q != nil; q = q.Parent {
		if q.MaxApps > 0 && q.RunningApps+1 > q.MaxApps {
			return q
		}
	}
	return nil
}

// blockingMax returns the first queue from leaf up whose max res would
// exceed, or nil.
func blockingMax(leaf *queue.Queue, res *resource.Vector) *queue.Queue {
	m := res.Support() // the types a limit can stop
	for q := leaf; q != nil; q = q.Parent {
		if !q.Max.AllowsAddOn(&q.Allocated, res, m) {
			return q
		}
	}
	return nil
}

// findNode returns the node an ask should go to, or nil. An ask that
// avoids a node (its binding failed there, requeue.go) takes any other
// node that fits first and falls back to the avoided one. An ask pinned to
// a node may go there while it is drained (unschedulable), as in the
// reference: whether it may is the RM's to say (a DaemonSet pod tolerates
// a cordoned node, and the Kubernetes shim's Predicates let it through).
func (p *Partition) findNode(x *app.Allocation) *node.Node {
	if x.RequiredNode != "" {
		n, ok := p.nodes[x.RequiredNode]
		if !ok || (n.ReservedFor != "" && !n.HeldFor(x.AppID, x.Key)) || !x.Res.Fits(n.Available()) {
			return nil
		}
		if !p.allowed(x, n) {
			return nil
		}
		return n
	}
	if p.predicate == nil && x.Avoid() == "" {
		return p.nodeIndex().First(&x.Res)
	}
	var avoided *node.Node
	avoid, idx := x.Avoid(), p.nodeIndex()
	for n := idx.First(&x.Res); n != nil; n = idx.Next(&x.Res, n) {
		if n.ID == avoid {
			avoided = n
			continue
		}
		if p.allowed(x, n) {
			return n
		}
		if p.rmAway {
			return nil
		}
	}
	if avoided != nil && p.allowed(x, avoided) {
		return avoided
	}
	return nil
}

// allowed asks the RM's predicate (if any) whether x may go to n; while
// events flow, a refusal's message is counted in vetoes.
func (p *Partition) allowed(x *app.Allocation, n *node.Node) bool {
	if p.predicate == nil {
		return true
	}
	err := p.predicate(x, n.ID, true)
	if err == nil {
		return true
	}
	if !p.noEvents && !p.rmAway {
		if p.vetoes == nil {
			p.vetoes = map[string]int{}
		}
		p.vetoes[err.Error()]++
	}
	return false
}

// PredicateEventInterval is the least time between two request events
// telling that the RM's predicates refused every node that fits an ask
// (reference §7: rate-limited to one per 15 s).
const PredicateEventInterval = 15 * time.Second

// tellVetoes sends the request event of an ask every node that fits was
// refused for by the RM's predicates, with the refusals counted by
// message ("Unschedulable request 'k': node(s) had taints (3x); "), at most
// once per PredicateEventInterval per ask; it clears the count.
func (p *Partition) tellVetoes(a *app.App, x *app.Allocation, now time.Time) {
	if len(p.vetoes) == 0 {
		return
	}
	defer clear(p.vetoes)
	if !x.PredicatesToldAt().IsZero() && now.Sub(x.PredicatesToldAt()) < PredicateEventInterval {
		return
	}
	x.SetPredicatesToldAt(now)
	msgs := make([]string, 0, len(p.vetoes))
	for m := range p.vetoes {
		msgs = append(msgs, m)
	}
	slices.Sort(msgs)
	var b strings.Builder
	b.WriteString("Unschedulable request '" + x.Key + "': ")
	for _, m := range msgs {
		b.WriteString(m + " (" + strconv.Itoa(p.vetoes[m]) + "x); ")
	}
	p.emitRequest(x.Key, a.ID, b.String(), x.Res, now)
}

// allocate applies one decision: ask x of a goes to node n.
func (p *Partition) allocate(a *app.App, leaf *queue.Queue, x *app.Allocation, n *node.Node, now time.Time) {
	p.unreserveAsk(a.ID, x.Key)
	if x.TriggeredPreemption {
		x.SetCooldownUntil(now.Add(PreemptionCooldown))
	}
	m := x.Res.Support() // the types every step below changes
	a.AllocateOn(x, n.ID, m, now)
	n.AddAllocOn(x, m)
	p.index.UpdateOn(n, m)
	p.emitNode(event.Add, event.NodeAlloc, n.ID, x.Key, "", &x.Res, now)
	leaf.Placed(a, &x.Res, m, x.Priority)
	p.markRunning(a, leaf)
	if x.Placeholder {
		p.startGangTimer(a, now)
	}
	p.Out.Allocations = append(p.Out.Allocations, x) // before the Running it causes
	if !x.Placeholder || a.PlaceholderAllocated == a.PlaceholderAsk {
		p.appState(a, app.RunEvent, now, "")
	}
	if l := p.log.Allocation; on(l) {
		debug(l, "allocated", slog.String("appID", a.ID), slog.String("allocationKey", x.Key), slog.String("nodeID", n.ID),
			slog.String("queue", leaf.Path), slog.String("resource", p.reg.Format(x.Res)), slog.Bool("placeholder", x.Placeholder))
	}
	// the reference's event order: the node's, the application's state,
	// the user's usage, the application's allocation
	// its usage events carry the decision's time, as the node's and the
	// application's do (not a clock read per event)
	p.usageTime = now
	if e, _ := p.users.AllocateOn(usageEntry(a), a.User, a.Group, a.QueuePath, a.ID, &x.Res, m); e != nil {
		a.Usage = e
	}
	p.usageTime = time.Time{}
	p.emitApp(event.Add, event.AppAlloc, a.ID, x.Key, "", &x.Res, now)
}

// Tick fires the partition's timers due at now: Completing applications
// become Completed, gangs time out, due quota-change preemptions run. It
// reports whether anything changed.
func (p *Partition) Tick(now time.Time) bool {
	changed := false
	p.lost.expire(now)
	var due []string
	for id, deadline := range p.completing {
		if !now.Before(deadline) {
			due = append(due, id)
		}
	}
	sortStrings(due)
	for _, id := range due {
		if t := p.lost.latest(id); !t.IsZero() {
			// an allocation of the application went with its node while
			// the RM may still be binding it: the RM may yet ask for it
			// again (Requeue), so the application waits for that
			p.completing[id] = t
			continue
		}
		delete(p.completing, id)
		if a, ok := p.apps[id]; ok && a.State == app.Completing {
			for _, ph := range sortedAllocs(a.Placeholders()) {
				p.dropPlaceholder(a, ph, Timeout, "releasing placeholders on app complete", now)
			}
			if a.AllocatedCount() > 0 || a.PendingCount() > 0 {
				// the timer is spent: the application completes when the
				// RM has confirmed the last placeholder's release (checkDone)
				continue
			}
			p.appState(a, app.CompleteEvent, now, "")
			p.retire(a, now)
			changed = true
		}
	}
	if len(p.gangTimers) > 0 && p.gangTimeouts(now) {
		changed = true
	}
	if p.quotaPreempt(now) {
		changed = true
	}
	if p.tree.CleanUp() > 0 {
		changed = true
	}
	var expired []string
	for id, d := range p.done {
		if !now.Before(d.expires) {
			expired = append(expired, id)
		}
	}
	sortStrings(expired)
	for _, id := range expired {
		p.appState(p.done[id].app, app.ExpireEvent, now, "")
		delete(p.done, id)
		changed = true
	}
	return changed
}

// Dirty reports whether a pass could allocate something.
func (p *Partition) Dirty() bool { return p.dirty }

// Reconsider makes the next Schedule run a pass over every waiting ask,
// as after a change of the partition: for a change outside it (the RM's
// node checks answering again).
func (p *Partition) Reconsider() { p.dirty = true }

// NextTimer returns the earliest time at which Tick or Schedule has
// something to do without any new input (a Completing application
// completes, an ask may reserve, a terminated application expires, a
// quota preemption is due), or the zero time. Virtual-time drivers use it
// to know when to step next.
func (p *Partition) NextTimer() time.Time {
	next := p.retryAt
	earlier := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	if !p.quotaNext.IsZero() {
		earlier(p.quotaNext)
	}
	for _, d := range p.gangTimers {
		earlier(d)
	}
	for _, d := range p.completing {
		earlier(d)
	}
	for _, d := range p.done {
		earlier(d.expires)
	}
	return next
}

// backoff counts an ask of a that fit no node in this pass and, when the
// leaf's application.unschedasks.backoff count is reached, parks the
// application until the backoff delay has passed. It reports whether it
// parked the application.
func (p *Partition) backoff(s *pass, a *app.App, leaf *queue.Queue, now time.Time) bool {
	limit := leaf.Props.UnschedAsksBackoff
	if limit == 0 {
		return false
	}
	if s.unplaced == nil {
		s.unplaced = map[*app.App]uint64{}
	}
	s.unplaced[a]++
	if s.unplaced[a] < limit {
		return false
	}
	a.BackoffUntil = now.Add(leaf.Props.UnschedAsksBackoffDelay)
	p.wakeAt(a.BackoffUntil)
	return true
}

// wakeAt makes sure a pass runs at t even if nothing else changes.
func (p *Partition) wakeAt(t time.Time) {
	if p.retryAt.IsZero() || t.Before(p.retryAt) {
		p.retryAt = t
	}
}

// sortedAllocs orders allocations by key.
func sortedAllocs(xs []*app.Allocation) []*app.Allocation {
	slices.SortFunc(xs, func(x, y *app.Allocation) int { return strings.Compare(x.Key, y.Key) })
	return xs
}
