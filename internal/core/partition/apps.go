package partition

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/paddock-sched/paddock/internal/config"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/core/place"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/core/usage"
	"github.com/paddock-sched/paddock/internal/resource"
)

// AppRequest is a new application from the RM.
type AppRequest struct {
	ID     string
	Queue  string // the queue the RM asks for ("" lets placement decide)
	User   string
	Groups []string
	Tags   map[string]string
	// Gang scheduling
	PlaceholderAsk   resource.Vector
	GangStyle        string
	ExecutionTimeout time.Duration
	// Created is when the RM created the application (its creationTime
	// tag), zero when unknown: after a restart the placeholder timeout
	// counts from it, not afresh (reference ConvertSITimeoutWithAdjustment).
	Created time.Time
}

// AddApp submits an application. On success it is Accepted into a leaf
// queue (placement decides which); a rejected application changes nothing
// and the reason is returned and reported.
func (p *Partition) AddApp(r AppRequest, now time.Time) error {
	if _, dup := p.apps[r.ID]; !dup && r.ID != "" {
		// the application object exists from here, rejected or not
		// (reference §7: APP_NEW, then the queue's events, or APP_REJECT)
		p.emitApp(event.Add, event.AppNew, r.ID, "", "", nil, now)
	}
	err := p.addApp(r, now)
	if l := p.log.Partition; on(l) {
		if err != nil {
			debug(l, "application rejected", slog.String("appID", r.ID), slog.String("user", r.User), slog.String("reason", err.Error()))
		} else {
			debug(l, "application added", slog.String("appID", r.ID), slog.String("user", r.User), slog.String("queue", p.apps[r.ID].QueuePath))
		}
	}
	if err != nil {
		p.Out.RejectedApps = append(p.Out.RejectedApps, Rejected{Partition: p.Name, AppID: r.ID, Reason: err.Error()})
		p.emitApp(event.Set, event.AppReject, r.ID, "", err.Error(), nil, now)
		return err
	}
	p.Out.AcceptedApps = append(p.Out.AcceptedApps, r.ID)
	return nil
}

func (p *Partition) addApp(r AppRequest, now time.Time) error {
	if r.ID == "" {
		return fmt.Errorf("application without ID")
	}
	if _, dup := p.apps[r.ID]; dup {
		return fmt.Errorf("application %s: already exists in partition %s", r.ID, p.Name)
	}
	leaf, err := p.place(&r)
	if err != nil {
		// the reference's wording: the Kubernetes shim shows the text
		// before the reason's first colon in the pod's status
		return fmt.Errorf("failed to place application %s: %w", r.ID, err)
	}
	if err := checkGang(r, leaf); err != nil {
		return fmt.Errorf("application %s: %w", r.ID, err)
	}
	a := app.Create(r.ID, r.User, r.Groups, r.Tags, now)
	a.PlaceholderAsk = r.PlaceholderAsk
	a.GangStyle = r.GangStyle
	a.ExecutionTimeout = r.ExecutionTimeout
	if a.Gang() && !r.Created.IsZero() && r.Created.Before(now) {
		d := a.ExecutionTimeout
		if d <= 0 {
			d = DefaultPlaceholderTimeout
		}
		a.ExecutionTimeout = max(d-now.Sub(r.Created), time.Nanosecond)
	}
	a.Group = p.users.SelectGroup(r.User, r.Groups, leaf.Path)
	p.apps[a.ID] = a
	leaf.AddApp(a)
	p.emitQueueApp(event.Add, leaf.Path, a.ID, now)
	return nil
}

// TagForce is the application tag that forces creation of a recovered
// application (reference §2.19).
const TagForce = "application.create.force"

// place finds, and if the rules say so creates, the leaf queue of a new
// application.
func (p *Partition) place(r *AppRequest) (*queue.Queue, error) {
	forced := strings.EqualFold(tagValue(r.Tags, TagForce), "true")
	if forced && r.User == "" {
		r.User, r.Groups = "nobody", []string{"nogroup"}
	}
	if r.User == "" {
		return nil, fmt.Errorf("no user")
	}
	if !config.ValidUserName(r.User) {
		return nil, fmt.Errorf("invalid user name %q", r.User)
	}
	if len(r.Groups) == 0 {
		r.Groups = p.groupsOf(r.User)
	}
	res, err := p.rules.Place(place.Request{AppID: r.ID, User: r.User, Groups: r.Groups, Tags: r.Tags, Queue: r.Queue, Forced: forced}, p.tree)
	if err != nil {
		return nil, err
	}
	if res.Queue == place.RecoveryPath {
		return p.tree.Recovery(), nil
	}
	var q *queue.Queue
	if res.Create {
		if q, err = p.tree.CreateDynamic(res.Queue); err != nil {
			return nil, err
		}
	} else if q, _ = p.tree.Queue(res.Queue); q == nil || !q.Leaf {
		return nil, fmt.Errorf("queue %s is not a leaf queue", res.Queue)
	}
	if !q.Managed {
		p.applyQuotaTags(q, r)
	}
	return q, nil
}

// Application tags that set the quota of the dynamic queue an application
// lands in (reference §2.19; written by the Kubernetes shim from the
// namespace's annotations). Resources are the JSON form of an SI Resource.
const (
	TagQuota      = "namespace.resourcequota"
	TagGuaranteed = "namespace.resourceguaranteed"
	TagMaxApps    = "namespace.resourcemaxapps"
)

// applyQuotaTags applies the quota tags of application r to the dynamic
// leaf q it is placed in. A tag that does not parse, or a resource quota
// with a quantity that is not above 0, is ignored with a warning, as in the
// reference (one bad namespace annotation must not reject every
// application of the namespace).
func (p *Partition) applyQuotaTags(q *queue.Queue, r *AppRequest) {
	bad := func(name, v string, why any) {
		p.log.Queue.LogAttrs(context.Background(), slog.LevelWarn, "application tag ignored",
			slog.String("appID", r.ID), slog.String("tag", name), slog.String("value", v), slog.Any("reason", why))
	}
	parse := func(name string) (resource.Quota, bool) {
		v := tagValue(r.Tags, name)
		if v == "" {
			return resource.Quota{}, false
		}
		var m struct {
			Resources map[string]struct {
				Value int64 `json:"value"`
			} `json:"resources"`
		}
		if err := json.Unmarshal([]byte(v), &m); err != nil {
			bad(name, v, err)
			return resource.Quota{}, false
		}
		vals := map[string]int64{}
		for k, x := range m.Resources {
			if x.Value <= 0 {
				bad(name, v, "resource quantities should be greater than zero")
				return resource.Quota{}, false
			}
			vals[k] = x.Value
		}
		qt, err := p.reg.QuotaFromMap(vals)
		if err != nil {
			bad(name, v, err)
			return resource.Quota{}, false
		}
		return qt, len(vals) > 0
	}
	maxQ, hasMax := parse(TagQuota)
	guar, hasGuar := parse(TagGuaranteed)
	var maxApps uint64
	if v := tagValue(r.Tags, TagMaxApps); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			bad(TagMaxApps, v, "not a count")
		}
		maxApps = n
	}
	if hasMax || hasGuar || maxApps > 0 {
		p.tree.Override(q, maxQ, hasMax, guar, hasGuar, maxApps)
	}
}

func tagValue(tags map[string]string, name string) string {
	if v, ok := tags[name]; ok {
		return v
	}
	for k, v := range tags {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// AddAsk adds a pending ask to an application. Unknown applications, bad
// resources and duplicate keys are rejected with a reason.
func (p *Partition) AddAsk(x *app.Allocation, now time.Time) error {
	err := p.addAsk(x, now)
	if err != nil {
		p.Out.RejectedAllocs = append(p.Out.RejectedAllocs, Rejected{Partition: p.Name, AppID: x.AppID, ID: x.Key, Reason: err.Error()})
	}
	return err
}

// AddAskOrKnown is AddAsk for an ask whose key its application (live or
// done, as App finds it) may know already: it then returns the known ask
// or allocation and changes nothing. Otherwise it adds x as AddAsk does
// and returns nil and AddAsk's error; the key, of app.HashKey h, is looked
// up once.
func (p *Partition) AddAskOrKnown(x *app.Allocation, h uint64, now time.Time) (*app.Allocation, error) {
	a, ok := p.apps[x.AppID]
	if !ok {
		if d, ok := p.done[x.AppID]; ok {
			if old, ok := d.app.Find(x.Key, h); ok {
				return old, nil
			}
		}
		return nil, p.AddAsk(x, now)
	}
	if old, ok := a.Find(x.Key, h); ok {
		return old, nil
	}
	err := p.addAskTo(a, x, now, h, true)
	if err != nil {
		p.Out.RejectedAllocs = append(p.Out.RejectedAllocs, Rejected{Partition: p.Name, AppID: x.AppID, ID: x.Key, Reason: err.Error()})
	}
	return nil, err
}

func (p *Partition) addAsk(x *app.Allocation, now time.Time) error {
	a, ok := p.apps[x.AppID]
	if !ok {
		return fmt.Errorf("allocation %s: unknown application %s", x.Key, x.AppID)
	}
	return p.addAskTo(a, x, now, 0, false)
}

// usageEntry is the usage manager's entry the partition keeps on a (nil
// for none): App.Usage holds it untyped, since package app cannot name it.
func usageEntry(a *app.App) *usage.Entry {
	e, _ := a.Usage.(*usage.Entry)
	return e
}

// addAskTo adds x to a; fresh says the caller found x's key, of app.HashKey
// h, unknown to a.
func (p *Partition) addAskTo(a *app.App, x *app.Allocation, now time.Time, h uint64, fresh bool) error {
	if a.State.Terminal() || a.State == app.Failing {
		return fmt.Errorf("allocation %s: application %s is %s", x.Key, a.ID, a.State)
	}
	m := x.Res.Support() // for the bound and the queues
	if err := p.boundDemandOn(x.Key, &resource.Vector{}, &x.Res, m); err != nil {
		return err
	}
	if x.Created.IsZero() {
		x.Created = now
	}
	var err error
	if fresh {
		err = a.AddNewAsk(x, h)
	} else {
		err = a.AddAsk(x)
	}
	if err != nil {
		return err
	}
	if p.lost.n > 0 {
		p.lost.drop(a.ID, x.Key) // the RM asks for the key again itself
	}
	p.leafOf(a).AddPending(a, &x.Res, m, x.Priority)
	if a.PendingCount() == 1 {
		// listed in its user's view from now; an application with asks
		// pending before this one is listed already, and one whose kept
		// entry runs needs nothing
		if !p.users.Runs(usageEntry(a)) {
			a.Usage = p.users.Pending(a.User, a.Group, a.ID)
		}
	}
	delete(p.completing, a.ID)
	switch a.State {
	case app.Completing:
		// running again, as it was: counted at once, so no queue or user
		// maxapplications holds it back (reference: only Accepted
		// applications are gated)
		p.markRunning(a, p.leafOf(a))
		p.appState(a, app.RunEvent, now, "")
	case app.New, app.Resuming:
		p.appState(a, app.RunEvent, now, "")
	}
	p.emitApp(event.Add, event.AppRequest, a.ID, x.Key, "", &x.Res, now) // after Accepted, as the reference
	p.dirty = true
	return nil
}

// allocationOf finds an ask or allocation by application and key.
func (p *Partition) allocationOf(appID, key string) (*app.App, *app.Allocation, error) {
	a, ok := p.apps[appID]
	if !ok {
		return nil, nil, fmt.Errorf("allocation %s: unknown application %s", key, appID)
	}
	x, ok := a.Allocation(key)
	if !ok {
		return nil, nil, fmt.Errorf("allocation %s: unknown in application %s", key, appID)
	}
	return a, x, nil
}

// UpdateAsk changes the resources of an existing ask or allocation in place.
func (p *Partition) UpdateAsk(appID, key string, res resource.Vector) error {
	a, x, err := p.allocationOf(appID, key)
	if err != nil {
		return err
	}
	pending, node := x.Pending(), x.NodeID
	var old resource.Vector
	if !x.Linked() {
		old = x.Res // counted in the demand
	}
	if err := p.boundDemand(key, &old, &res); err != nil {
		return err
	}
	delta, err := a.UpdateAsk(key, res)
	if err != nil {
		return err
	}
	leaf := p.leafOf(a)
	if pending {
		leaf.Apply(a, resource.Vector{}, delta, 0, 0)
	} else {
		leaf.Apply(a, delta, resource.Vector{}, 0, 0)
		leaf.Holds(&x.Res)
		p.trackResize(a, delta)
		if x.Preempted {
			for q := leaf; q != nil; q = q.Parent {
				q.Preempting.Inc(delta)
			}
		}
		x.Forced = true
		p.bounds.Resized(x)
		if n, ok := p.nodes[node]; ok {
			n.Resize(delta)
			p.index.Update(n)
		}
	}
	p.dirty = true
	return nil
}

// AddAllocation adds an allocation the RM already placed (recovery after a
// restart, or an RM-side binding). It is accounted "at any cost": queue
// maxima do not stop it (reference §2.6). It is confirmed to the RM as new.
func (p *Partition) AddAllocation(x *app.Allocation, now time.Time) error {
	err := p.addAllocation(x, now)
	if err != nil {
		p.Out.RejectedAllocs = append(p.Out.RejectedAllocs, Rejected{Partition: p.Name, AppID: x.AppID, ID: x.Key, Reason: err.Error()})
		return err
	}
	return nil
}

// BindPending is AddAllocation for an allocation whose key is a pending
// ask of its application: the RM placed the ask itself (reference
// partition.UpdateAllocation, "transitioning from requested to
// allocated"). The ask leaves the pending asks and x, with the node and
// resources the RM gave, is accounted at any cost and confirmed as new.
// It reports false, changing nothing, when the key is not a pending ask
// (or is a placeholder's) or x's node is unknown.
func (p *Partition) BindPending(x *app.Allocation, now time.Time) bool {
	a, ok := p.apps[x.AppID]
	if !ok {
		return false
	}
	old, ok := a.Allocation(x.Key)
	if _, known := p.nodes[x.NodeID]; !ok || !known || !old.Pending() || old.Linked() || old.Placeholder {
		return false // a placeholder's bookkeeping (its task group) stays the scheduler's
	}
	if x.Created.IsZero() {
		x.Created = old.Created
	}
	p.drop(a, x.Key, StoppedByRM, now) // quietly: the ask is not cancelled, it is placed
	if err := p.AddAllocation(x, now); err != nil {
		p.checkDone(a, p.leafOf(a), now, false)
	}
	return true
}

func (p *Partition) addAllocation(x *app.Allocation, now time.Time) error {
	a, ok := p.apps[x.AppID]
	if !ok {
		return fmt.Errorf("allocation %s: unknown application %s", x.Key, x.AppID)
	}
	n, ok := p.nodes[x.NodeID]
	if !ok {
		return fmt.Errorf("allocation %s: unknown node %s", x.Key, x.NodeID)
	}
	if err := p.boundDemand(x.Key, &resource.Vector{}, &x.Res); err != nil {
		return err
	}
	if x.Created.IsZero() {
		x.Created = now
	}
	if x.Allocated.IsZero() {
		x.Allocated = now
	}
	x.Forced = true
	if err := a.AddAllocation(x); err != nil {
		return err
	}
	if p.lost.n > 0 {
		p.lost.drop(a.ID, x.Key) // the RM placed the key itself
	}
	n.AddAlloc(x)
	p.markStale(n)
	p.emitNode(event.Add, event.NodeAlloc, n.ID, x.Key, "", &x.Res, now)
	leaf := p.leafOf(a)
	leaf.Apply(a, x.Res, resource.Vector{}, 0, 0)
	leaf.Holds(&x.Res)
	delete(p.completing, a.ID)
	p.markRunning(a, leaf)
	if a.State == app.New || a.State == app.Resuming {
		p.appState(a, app.RunEvent, now, "")
	}
	p.Out.Allocations = append(p.Out.Allocations, x) // confirmed to the RM after Accepted, before Running
	if x.Placeholder {
		p.startGangTimer(a, now) // a recovered gang times out as before the restart
	}
	if !x.Placeholder || a.PlaceholderAllocated == a.PlaceholderAsk {
		// a real allocation, or the gang's last placeholder: a gang
		// recovered whole runs as before the restart (reference
		// addAllocationInternal)
		p.appState(a, app.RunEvent, now, "")
	}
	_ = p.users.Allocate(a.User, a.Group, a.QueuePath, a.ID, x.Res)
	p.emitApp(event.Add, event.AppAlloc, a.ID, x.Key, "", &x.Res, now)
	return nil
}

func (p *Partition) markRunning(a *app.App, leaf *queue.Queue) {
	if a.CountedRunning {
		return
	}
	a.CountedRunning = true
	for q := leaf; q != nil; q = q.Parent {
		q.RunningApps++
	}
}

func (p *Partition) unmarkRunning(a *app.App, leaf *queue.Queue) {
	if !a.CountedRunning {
		return
	}
	a.CountedRunning = false
	for q := leaf; q != nil; q = q.Parent {
		q.RunningApps--
	}
}

// Release removes an ask or allocation of an application at the RM's
// request. It reports whether the key was known. A key released with its
// node is forgotten (lost.go).
func (p *Partition) Release(appID, key string, now time.Time) bool {
	if p.lost.n > 0 {
		p.lost.drop(appID, key)
	}
	a, ok := p.apps[appID]
	if !ok {
		return false
	}
	if _, ok := a.Allocation(key); !ok {
		return false
	}
	p.releaseAllocation(a, key, StoppedByRM, now)
	return true
}

// releaseAllocation removes key from a and everything that accounts for
// it; an application left with nothing goes Completing (reported before
// the removal, as the reference orders its events).
func (p *Partition) releaseAllocation(a *app.App, key string, term Termination, now time.Time) {
	if leaf, d := p.drop(a, key, term, now); leaf != nil {
		p.checkDone(a, leaf, now, d.node && !d.x.Placeholder)
		p.reportDrop(a, d, now)
	}
}

// dropAllocation removes key from a and everything that accounts for it,
// without changing the application's state. It returns a's leaf queue, or
// nil when the key is unknown.
func (p *Partition) dropAllocation(a *app.App, key string, term Termination, now time.Time) *queue.Queue {
	leaf, d := p.drop(a, key, term, now)
	if leaf != nil {
		p.reportDrop(a, d, now)
	}
	return leaf
}

// dropped is what drop removed, for reportDrop.
type dropped struct {
	x      *app.Allocation // nil: nothing to report
	detail event.Detail
	node   bool // it was on a node
}

// reportDrop sends the events of a removal: the application's, then the
// node's.
func (p *Partition) reportDrop(a *app.App, d dropped, now time.Time) {
	if d.x != nil && d.node {
		if l := p.log.Allocation; on(l) {
			debug(l, "allocation removed", slog.String("appID", a.ID), slog.String("allocationKey", d.x.Key),
				slog.String("nodeID", d.x.NodeID), slog.String("resource", p.reg.Format(d.x.Res)), slog.Int("detail", int(d.detail)))
		}
	}
	if d.x == nil || p.noEvents {
		return
	}
	p.emitApp(event.Remove, d.detail, a.ID, d.x.Key, "", &d.x.Res, now)
	if d.node {
		p.emitNode(event.Remove, event.NodeAlloc, d.x.NodeID, d.x.Key, "", &d.x.Res, now)
	}
}

// drop is dropAllocation without the events, which it returns.
func (p *Partition) drop(a *app.App, key string, term Termination, now time.Time) (*queue.Queue, dropped) {
	x, ok := a.Allocation(key)
	if !ok {
		return nil, dropped{}
	}
	leaf := p.leafOf(a)
	if x.Placeholder {
		// as the reference counts placeholderData: every placeholder that
		// goes other than by a confirmed replacement (counted by the swap)
		// timed out, one whose replacement was not confirmed yet (its node
		// went) included
		if term == PlaceholderReplaced {
			a.Replaced(x.TaskGroup)
		} else {
			a.TimedOut(x.TaskGroup)
		}
	}
	if real := x.ReplacedBy(); real != nil {
		// the placeholder goes without a confirmed swap: its real ask waits
		// for a node again
		a.Unlink(real)
		leaf.Apply(a, resource.Vector{}, real.Res, real.Priority, 1)
	}
	if x.Linked() {
		a.Remove(key, now) // neither pending nor allocated: nothing is accounted
		return leaf, dropped{}
	}
	a.Remove(key, now)
	p.unreserveAsk(a.ID, key)
	if x.Preempted && term == StoppedByRM {
		term = PreemptedByScheduler // the RM confirms a preemption
	}
	if x.Released && x.Placeholder && x.ReplacedBy() == nil && term == StoppedByRM {
		term = Timeout // the RM confirms a placeholder the scheduler gave up
	}
	p.victimGone(x, leaf)
	d := dropped{x: x, detail: releaseDetail[term], node: !x.Pending()}
	if x.Pending() {
		d.detail = event.RequestCancel
		if term == Timeout {
			d.detail = event.RequestTimeout
		}
	}
	if x.Placeholder && x.Pending() && len(p.gangHolds[a.ID]) > 0 && !hasPendingPlaceholder(a) {
		p.releaseGangHolds(a.ID)
	}
	idle := a.PendingCount() == 0 && a.AllocatedCount() == 0
	if x.Pending() {
		leaf.Apply(a, resource.Vector{}, neg(x.Res), x.Priority, -1)
		if idle {
			p.users.RemoveApp(a.ID)
		}
		if x.ScaleUp {
			p.dirty = true // its room in the autoscaling signal is free (reportWaiting)
		}
	} else {
		leaf.Apply(a, neg(x.Res), resource.Vector{}, 0, 0)
		_ = p.users.Release(a.User, a.Group, a.QueuePath, a.ID, x.Res, idle)
		if n, ok := p.nodes[x.NodeID]; ok && n.RemoveAlloc(x) {
			p.index.Update(n)
		}
		p.dirty = true
	}
	return leaf, d
}

// checkDone moves an application with nothing left but allocated
// placeholders to Completing when a real allocation went (the reference
// counts only real allocations then; the placeholders go when the
// Completing timer fires) and with nothing left at all when an ask or a
// placeholder went (a gang still waiting for its placeholders is not done:
// its timeout decides), a Completing one whose timer released its
// placeholders to Completed once the RM confirmed the last, and a Failing
// one with nothing left to Failed. real says a real allocation went.
func (p *Partition) checkDone(a *app.App, leaf *queue.Queue, now time.Time, real bool) {
	if a.PendingCount() > 0 || a.LinkedCount() > 0 {
		return
	}
	switch a.State {
	case app.Completing:
		if _, timer := p.completing[a.ID]; timer || a.AllocatedCount() > 0 {
			return
		}
		p.appState(a, app.CompleteEvent, now, "")
		p.retire(a, now)
	case app.Accepted, app.Running:
		if !onlyPlaceholders(a) || !real && a.AllocatedCount() > 0 {
			return
		}
		p.unmarkRunning(a, leaf)
		p.appState(a, app.CompleteEvent, now, "")
		p.completing[a.ID] = now.Add(CompletingTimeout)
	case app.Failing:
		if a.AllocatedCount() > 0 {
			return
		}
		p.unmarkRunning(a, leaf)
		p.appState(a, app.FailEvent, now, "")
		p.retire(a, now)
	}
}

// RemoveApp removes an application at the RM's request: its allocations
// are released (reported to the RM as stopped by the RM) and it leaves its
// queue. Its state does not change: the RM asked for it to go, so no
// Completing or Completed update follows (reference §2.19).
func (p *Partition) RemoveApp(appID string, now time.Time) error {
	a, ok := p.apps[appID]
	if !ok {
		return fmt.Errorf("application %s: unknown in partition %s", appID, p.Name)
	}
	leaf := p.leafOf(a)
	var keys []string
	a.Each(func(x *app.Allocation) bool { keys = append(keys, x.Key); return true })
	sortStrings(keys)
	for _, k := range keys {
		x, _ := a.Allocation(k)
		wasAllocated := !x.Pending() && !x.Linked()
		p.dropAllocation(a, k, StoppedByRM, now)
		if wasAllocated {
			p.Out.Released = append(p.Out.Released, Released{
				Partition: p.Name, AppID: appID, AllocationKey: k, Termination: StoppedByRM, Message: "application removed",
			})
		}
	}
	p.unmarkRunning(a, leaf)
	p.users.RemoveApp(appID)
	delete(p.gangTimers, appID)
	p.releaseGangHolds(appID)
	p.lost.dropApp(appID)
	leaf.RemoveApp(a)
	p.appLeft(a, leaf, now)
	delete(p.apps, appID)
	delete(p.completing, appID)
	return nil
}

func neg(v resource.Vector) resource.Vector {
	var n resource.Vector
	n.Dec(v)
	return n
}

// trackResize moves user and group usage by the delta of an in-place
// resize of a running allocation.
func (p *Partition) trackResize(a *app.App, delta resource.Vector) {
	var up, down resource.Vector
	for i, d := range delta {
		if d > 0 {
			up[i] = d
		} else {
			down[i] = -d
		}
	}
	if up.AnyPositive() {
		_ = p.users.Allocate(a.User, a.Group, a.QueuePath, a.ID, up)
	}
	if down.AnyPositive() {
		_ = p.users.Release(a.User, a.Group, a.QueuePath, a.ID, down, false)
	}
}

// onlyPlaceholders reports whether every allocation of a, if any, is a
// placeholder.
func onlyPlaceholders(a *app.App) bool {
	only := true
	a.Each(func(x *app.Allocation) bool {
		only = x.Placeholder
		return only
	})
	return only
}
