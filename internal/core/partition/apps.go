package partition

import (
	"fmt"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/queue"
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
}

// AddApp submits an application. On success it is Accepted into a leaf
// queue (placement decides which); a rejected application changes nothing
// and the reason is returned and reported.
func (p *Partition) AddApp(r AppRequest, now time.Time) error {
	err := p.addApp(r, now)
	if err != nil {
		p.Out.RejectedApps = append(p.Out.RejectedApps, Rejected{Partition: p.Name, AppID: r.ID, Reason: err.Error()})
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
	if r.User == "" {
		return fmt.Errorf("application %s: no user", r.ID)
	}
	leaf, err := p.place(r)
	if err != nil {
		return fmt.Errorf("application %s: %w", r.ID, err)
	}
	if err := checkGang(r, leaf); err != nil {
		return fmt.Errorf("application %s: %w", r.ID, err)
	}
	a := app.Create(r.ID, r.User, r.Groups, r.Tags, now)
	a.PlaceholderAsk = r.PlaceholderAsk
	a.GangStyle = r.GangStyle
	a.ExecutionTimeout = r.ExecutionTimeout
	a.Group = p.users.SelectGroup(r.User, r.Groups, leaf.Path)
	p.apps[a.ID] = a
	leaf.AddApp(a)
	return nil
}

// place finds the leaf queue of a new application. Until the placement
// rules are wired in, the provided queue must be an existing leaf the user
// may submit to; when none is given, root.default is used.
func (p *Partition) place(r AppRequest) (*queue.Queue, error) {
	path := strings.ToLower(r.Queue)
	if path == "" {
		path = config.RootQueue + ".default"
	}
	if path != config.RootQueue && !strings.HasPrefix(path, config.RootQueue+".") {
		path = config.RootQueue + "." + path
	}
	q, ok := p.tree.Queue(path)
	if !ok {
		return nil, fmt.Errorf("queue %s does not exist", path)
	}
	if !q.Leaf {
		return nil, fmt.Errorf("queue %s is not a leaf queue", path)
	}
	if q.State == queue.Draining {
		return nil, fmt.Errorf("queue %s is draining", path)
	}
	if !q.CanSubmit(r.User, r.Groups) {
		return nil, fmt.Errorf("user %s may not submit to queue %s", r.User, path)
	}
	return q, nil
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

func (p *Partition) addAsk(x *app.Allocation, now time.Time) error {
	a, ok := p.apps[x.AppID]
	if !ok {
		return fmt.Errorf("allocation %s: unknown application %s", x.Key, x.AppID)
	}
	if a.State.Terminal() || a.State == app.Failing {
		return fmt.Errorf("allocation %s: application %s is %s", x.Key, a.ID, a.State)
	}
	if x.Created.IsZero() {
		x.Created = now
	}
	if err := a.AddAsk(x); err != nil {
		return err
	}
	p.leafOf(a).Apply(a, resource.Vector{}, x.Res, x.Priority, 1)
	delete(p.completing, a.ID)
	switch a.State {
	case app.New, app.Resuming:
		p.appState(a, app.RunEvent, now, "")
	case app.Completing:
		p.appState(a, app.RunEvent, now, "")
	}
	p.dirty = true
	return nil
}

// UpdateAsk changes the resources of an existing ask or allocation in place.
func (p *Partition) UpdateAsk(appID, key string, res resource.Vector) error {
	a, ok := p.apps[appID]
	if !ok {
		return fmt.Errorf("allocation %s: unknown application %s", key, appID)
	}
	x, ok := a.Allocation(key)
	if !ok {
		return fmt.Errorf("allocation %s: unknown in application %s", key, appID)
	}
	pending, node := x.Pending(), x.NodeID
	delta, err := a.UpdateAsk(key, res)
	if err != nil {
		return err
	}
	leaf := p.leafOf(a)
	if pending {
		leaf.Apply(a, resource.Vector{}, delta, 0, 0)
	} else {
		leaf.Apply(a, delta, resource.Vector{}, 0, 0)
		p.trackResize(a, delta)
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
	p.Out.Allocations = append(p.Out.Allocations, x)
	return nil
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
	if x.Created.IsZero() {
		x.Created = now
	}
	if x.Allocated.IsZero() {
		x.Allocated = now
	}
	if err := a.AddAllocation(x); err != nil {
		return err
	}
	n.AddAlloc(x)
	p.index.Update(n)
	leaf := p.leafOf(a)
	leaf.Apply(a, x.Res, resource.Vector{}, 0, 0)
	_ = p.users.Allocate(a.User, a.Group, a.QueuePath, a.ID, x.Res)
	delete(p.completing, a.ID)
	p.markRunning(a, leaf)
	if a.State == app.New || a.State == app.Resuming {
		p.appState(a, app.RunEvent, now, "")
	}
	if !x.Placeholder {
		p.appState(a, app.RunEvent, now, "")
	}
	return nil
}

func (p *Partition) markRunning(a *app.App, leaf *queue.Queue) {
	if p.running[a.ID] {
		return
	}
	p.running[a.ID] = true
	for q := leaf; q != nil; q = q.Parent {
		q.RunningApps++
	}
}

func (p *Partition) unmarkRunning(a *app.App, leaf *queue.Queue) {
	if !p.running[a.ID] {
		return
	}
	delete(p.running, a.ID)
	for q := leaf; q != nil; q = q.Parent {
		q.RunningApps--
	}
}

// Release removes an ask or allocation of an application at the RM's
// request. It reports whether the key was known.
func (p *Partition) Release(appID, key string, now time.Time) bool {
	a, ok := p.apps[appID]
	if !ok {
		return false
	}
	if _, ok := a.Allocation(key); !ok {
		return false
	}
	p.releaseAllocation(a, key, now)
	return true
}

// releaseAllocation removes key from a and everything that accounts for it.
func (p *Partition) releaseAllocation(a *app.App, key string, now time.Time) {
	x, ok := a.Allocation(key)
	if !ok {
		return
	}
	leaf := p.leafOf(a)
	if real := x.ReplacedBy; real != nil {
		// the placeholder goes without a confirmed swap: its real ask waits
		// for a node again
		a.Unlink(real)
		leaf.Apply(a, resource.Vector{}, real.Res, real.Priority, 1)
	}
	if x.Linked() {
		a.Remove(key) // neither pending nor allocated: nothing is accounted
		p.checkDone(a, leaf, now)
		return
	}
	a.Remove(key)
	p.unreserveAsk(a.ID, key)
	idle := a.PendingCount() == 0 && a.AllocatedCount() == 0
	if x.Pending() {
		leaf.Apply(a, resource.Vector{}, neg(x.Res), x.Priority, -1)
		if idle {
			p.users.RemoveApp(a.ID)
		}
	} else {
		leaf.Apply(a, neg(x.Res), resource.Vector{}, 0, 0)
		_ = p.users.Release(a.User, a.Group, a.QueuePath, a.ID, x.Res, idle)
		if n, ok := p.nodes[x.NodeID]; ok && n.RemoveAlloc(x) {
			p.index.Update(n)
		}
		p.dirty = true
	}
	p.checkDone(a, leaf, now)
}

// checkDone moves an application with nothing left to Completing.
func (p *Partition) checkDone(a *app.App, leaf *queue.Queue, now time.Time) {
	if a.PendingCount() > 0 || a.AllocatedCount() > 0 {
		return
	}
	switch a.State {
	case app.Accepted, app.Running:
		p.unmarkRunning(a, leaf)
		p.appState(a, app.CompleteEvent, now, "")
		p.completing[a.ID] = now.Add(CompletingTimeout)
	case app.Failing:
		p.unmarkRunning(a, leaf)
		p.appState(a, app.FailEvent, now, "")
		p.retire(a, now)
	}
}

// RemoveApp removes an application at the RM's request: its allocations
// are released (reported to the RM as stopped by the RM) and it leaves its
// queue.
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
		wasAllocated := !x.Pending()
		p.releaseAllocation(a, k, now)
		if wasAllocated {
			p.Out.Released = append(p.Out.Released, Released{
				Partition: p.Name, AppID: appID, AllocationKey: k, Termination: StoppedByRM, Message: "application removed",
			})
		}
	}
	p.unmarkRunning(a, leaf)
	p.users.RemoveApp(appID)
	delete(p.gangTimers, appID)
	leaf.RemoveApp(a)
	delete(p.apps, appID)
	delete(p.completing, appID)
	if a.State == app.Completing {
		p.appState(a, app.CompleteEvent, now, "")
	}
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
