package partition

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/resource"
)

// DefaultPlaceholderTimeout is the placeholder timeout of a gang
// application that sets no executionTimeoutMilliSeconds (reference §2.10).
const DefaultPlaceholderTimeout = 15 * time.Minute

// Gang scheduling styles.
const (
	GangSoft = "Soft"
	GangHard = "Hard"
)

// checkGang admits a gang application into leaf: the leaf sorts fifo and
// the whole placeholder ask fits the configured max of every queue on the
// path (the cluster size is not considered: nodes may still come).
func checkGang(r AppRequest, leaf *queue.Queue) error {
	if !r.PlaceholderAsk.AnyPositive() {
		return nil
	}
	if r.PlaceholderAsk.HasNegative() {
		return fmt.Errorf("placeholder ask is negative")
	}
	if r.GangStyle != "" && !strings.EqualFold(r.GangStyle, GangSoft) && !strings.EqualFold(r.GangStyle, GangHard) {
		return fmt.Errorf("unknown gang scheduling style %q (want Soft or Hard)", r.GangStyle)
	}
	if leaf.Props.SortPolicy != config.SortFIFO {
		return fmt.Errorf("gang scheduling needs a fifo queue, %s sorts %s", leaf.Path, leaf.Props.SortPolicy)
	}
	for q := leaf; q.Parent != nil; q = q.Parent {
		if !q.Max.Allows(r.PlaceholderAsk) {
			return fmt.Errorf("placeholder ask exceeds the max of queue %s", q.Path)
		}
	}
	return nil
}

func hardGang(a *app.App) bool { return strings.EqualFold(a.GangStyle, GangHard) }

// startGangTimer starts the placeholder timeout at the first placeholder
// allocation.
func (p *Partition) startGangTimer(a *app.App, now time.Time) {
	if _, running := p.gangTimers[a.ID]; running {
		return
	}
	d := a.ExecutionTimeout
	if d <= 0 {
		d = DefaultPlaceholderTimeout
	}
	p.gangTimers[a.ID] = now.Add(d)
}

// replace handles real ask x of a task group whose application holds an
// allocated placeholder of that group. It reports whether x was taken care
// of (linked to a placeholder); false means x should be scheduled
// normally.
func (p *Partition) replace(a *app.App, leaf *queue.Queue, x *app.Allocation, now time.Time) bool {
	for {
		ph := a.Placeholder(x.TaskGroup)
		if ph == nil {
			return false
		}
		if !x.Res.Fits(ph.Res) {
			// the real ask is larger: this placeholder cannot help it
			if !p.noEvents {
				p.emitRequest(ph.Key, a.ID, "Task group '"+x.TaskGroup+"' in application '"+a.ID+"': allocation resources '"+
					p.reg.Format(x.Res)+"' are not matching placeholder '"+p.reg.Format(ph.Res)+"' allocation with ID '"+ph.Key+"'", x.Res, now)
			}
			p.dropPlaceholder(a, ph, Timeout, "cancel placeholder: resource incompatible", now)
			continue
		}
		on := ""
		if p.predicate != nil && p.predicate(x, ph.NodeID, false) != nil {
			// the RM refuses that node: replace a placeholder of the
			// group on another node, else replace this one across nodes:
			// the real ask goes to another node that has room and that
			// the RM allows (reference §2.10), else wait
			if other := p.placeholderElsewhere(a, x, ph.NodeID); other != nil {
				ph = other
			} else if n := p.crossNode(x, ph); n != nil {
				on = n.ID
			} else {
				return false
			}
		}
		p.unreserveAsk(a.ID, x.Key)
		a.LinkOn(x, ph, on)
		leaf.Apply(a, resource.Vector{}, neg(x.Res), x.Priority, -1)
		p.Out.Released = append(p.Out.Released, Released{
			Partition: p.Name, AppID: a.ID, AllocationKey: ph.Key, Termination: PlaceholderReplaced,
			Message: "replaced by " + x.Key,
		})
		return true
	}
}

// placeholderElsewhere returns a placeholder of x's task group, at least
// as large as x, on a node other than refused that the RM's predicates
// accept for x, or nil.
func (p *Partition) placeholderElsewhere(a *app.App, x *app.Allocation, refused string) *app.Allocation {
	tried := map[string]bool{refused: true}
	for _, ph := range a.PlaceholdersOf(x.TaskGroup) {
		if tried[ph.NodeID] || !x.Res.Fits(ph.Res) {
			continue
		}
		tried[ph.NodeID] = true
		if p.predicate(x, ph.NodeID, false) == nil {
			return ph
		}
	}
	return nil
}

// crossNode returns a node other than placeholder ph's where real ask x
// fits now and the RM's predicates allow it, or nil: the node x replaces
// ph on when the RM refuses ph's node for it. The queues are not checked:
// ph's usage covers x, which is no larger.
func (p *Partition) crossNode(x, ph *app.Allocation) *node.Node {
	idx := p.nodeIndex()
	for n := idx.First(&x.Res); n != nil; n = idx.Next(&x.Res, n) {
		if n.ID != ph.NodeID && p.allowed(x, n) {
			if len(p.vetoes) > 0 {
				clear(p.vetoes) // refusals of the search: no event
			}
			return n
		}
	}
	if len(p.vetoes) > 0 {
		clear(p.vetoes)
	}
	return nil
}

// dropPlaceholder releases a placeholder the scheduler gives up (timed
// out, or too small for its real ask) and reports it to the RM; it counts
// as timed out in its task group (drop). A pending one leaves at once. An
// allocated one, as in the reference, keeps its room on its node, in its
// queues and with its user until the RM confirms the release (its pod is
// gone): nothing is placed in room the pod still holds, and whatever the
// release leads to (the application's Completed or Failed) follows the
// RM's confirmation, so the RM never hears of it first (the Kubernetes
// shim forgets a Completed application at once and then drops the
// release, leaving the placeholder pod running).
func (p *Partition) dropPlaceholder(a *app.App, ph *app.Allocation, t Termination, msg string, now time.Time) {
	a.MarkReleased(ph)
	p.Out.Released = append(p.Out.Released, Released{
		Partition: p.Name, AppID: a.ID, AllocationKey: ph.Key, Termination: t, Message: msg,
	})
	if ph.Pending() {
		p.releaseAllocation(a, ph.Key, t, now)
	}
}

// ConfirmReplacement is the RM's confirmation that placeholder phKey was
// released for its replacement: the real ask takes its place on the node,
// usage shrinks when the real ask is smaller, and the real allocation is
// reported as new. A confirmation for a placeholder that was not being
// replaced releases it like any other allocation.
func (p *Partition) ConfirmReplacement(appID, phKey string, now time.Time) bool {
	a, ok := p.apps[appID]
	if !ok {
		return false
	}
	ph, ok := a.Allocation(phKey)
	if !ok {
		return false
	}
	if ph.ReplacedBy() == nil {
		p.releaseAllocation(a, phKey, PlaceholderReplaced, now)
		return true
	}
	n := p.nodes[ph.NodeID]
	to := n
	if on := ph.ReplacedBy().ReplaceOn(); on != "" {
		// replaced across nodes: the real ask goes to the other node if
		// it still has room, else it waits for a node again
		var ok bool
		if to, ok = p.nodes[on]; !ok || !to.Schedulable || !ph.ReplacedBy().Res.Fits(to.Available()) {
			p.releaseAllocation(a, phKey, PlaceholderReplaced, now)
			return true
		}
	}
	leaf := p.leafOf(a)
	x := a.Swap(ph, now)
	delta := x.Res.Sub(ph.Res)
	if n != nil {
		n.RemoveAlloc(ph)
		if n != to {
			p.index.Update(n)
		}
	}
	if to != nil {
		to.AddAlloc(x)
		p.index.Update(to)
	}
	leaf.Apply(a, delta, resource.Vector{}, 0, 0)
	leaf.Holds(&x.Res)
	_ = p.users.Release(a.User, a.Group, a.QueuePath, a.ID, ph.Res, false)
	p.emitApp(event.Remove, event.AllocReplaced, a.ID, ph.Key, "", &ph.Res, now)
	if n != nil {
		p.emitNode(event.Remove, event.NodeAlloc, n.ID, ph.Key, "", &ph.Res, now)
	}
	if to != nil {
		p.emitNode(event.Add, event.NodeAlloc, to.ID, x.Key, "", &x.Res, now)
	}
	p.Out.Allocations = append(p.Out.Allocations, x)
	p.appState(a, app.RunEvent, now, "")
	_ = p.users.Allocate(a.User, a.Group, a.QueuePath, a.ID, x.Res)
	p.emitApp(event.Add, event.AppAlloc, a.ID, x.Key, "", &x.Res, now)
	p.dirty = true
	return true
}

// gangTimeouts fires due placeholder timeouts (reference §2.10): a running
// application loses its unused placeholders; one still waiting for its
// gang resumes normal scheduling (Soft) or fails (Hard), releasing every
// placeholder, and for Hard every pending ask too.
func (p *Partition) gangTimeouts(now time.Time) bool {
	var due []string
	for id, t := range p.gangTimers {
		if !now.Before(t) {
			due = append(due, id)
		}
	}
	sortStrings(due)
	for _, id := range due {
		delete(p.gangTimers, id)
		p.releaseGangHolds(id)
		a, ok := p.apps[id]
		if !ok {
			continue
		}
		waiting := a.State == app.New || a.State == app.Accepted
		a.GangTimedOut = true
		if waiting {
			if hardGang(a) {
				p.appState(a, app.FailEvent, now, "ResourceReservationTimeout")
			} else {
				p.appState(a, app.ResumeEvent, now, "ResourceReservationTimeout")
			}
		}
		var keys []string
		a.Each(func(x *app.Allocation) bool {
			if x.Placeholder || (waiting && hardGang(a) && x.Pending()) {
				keys = append(keys, x.Key)
			}
			return true
		})
		sortStrings(keys)
		for _, k := range keys {
			x, ok := a.Allocation(k)
			if !ok || x.ReplacedBy() != nil || x.Released {
				continue // being replaced, or released already
			}
			if x.Placeholder {
				// pending or not, the placeholder's pod exists in the RM
				msg := "releasing allocated placeholders on placeholder timeout"
				if x.Pending() {
					msg = "releasing pending placeholders on placeholder timeout"
				}
				p.dropPlaceholder(a, x, Timeout, msg, now)
				continue
			}
			p.releaseAllocation(a, k, Timeout, now)
		}
		if a.State == app.Resuming {
			// its asks are scheduled normally from now, while the RM
			// removes the placeholders' pods
			p.appState(a, app.RunEvent, now, "")
		}
		p.dirty = true // a resumed gang schedules its asks normally
	}
	return len(due) > 0
}

// placeGang places the pending placeholders of gang application a all
// together or not at all (issue: a gang is never half-placed). It first
// checks that their sum fits the user's limits and every queue max on the
// path, then tries every placeholder on the nodes with the earlier ones
// tentatively counted, undoes the trial, and only when all fit allocates
// them. Two gangs competing for the same room thus never hold partial
// placeholders that block each other. It returns how many it placed and
// the reason when it placed none.
func (p *Partition) placeGang(a *app.App, leaf *queue.Queue, phs []*app.Allocation, sum resource.Vector, now time.Time) (int, app.Reason) {
	if !p.users.Allows(a.User, a.Group, a.QueuePath, a.ID, sum) {
		return 0, app.Reason{Kind: app.UserLimit, Object: a.User}
	}
	if q := blockingMax(leaf, &sum); q != nil {
		return 0, app.Reason{Kind: app.QueueMax, Object: q.Path}
	}
	type trial struct {
		n   *node.Node
		res resource.Vector
	}
	tried := make([]trial, 0, len(phs))
	ok := true
	for _, x := range phs {
		n := p.heldNode(a, x)
		if n == nil {
			n = p.findNode(x)
		}
		if n == nil {
			ok = false
			break
		}
		n.Resize(x.Res)
		p.index.Update(n)
		tried = append(tried, trial{n, x.Res})
	}
	for i := len(tried) - 1; i >= 0; i-- {
		tried[i].n.Resize(neg(tried[i].res))
		p.index.Update(tried[i].n)
	}
	if !ok {
		return 0, app.Reason{Kind: app.GangDoesNotFit}
	}
	// the trial's nodes are the ones a real placement in the same order
	// finds, so the placeholders go there without searching again
	p.releaseGangHolds(a.ID)
	for i, x := range phs {
		p.allocate(a, leaf, x, tried[i].n, now)
	}
	return len(phs), app.Reason{}
}

// pendingPlaceholders returns the pending placeholders of a in placement
// order (higher priority first, then by key) and their sum.
func pendingPlaceholders(a *app.App) ([]*app.Allocation, resource.Vector) {
	var phs []*app.Allocation
	var sum resource.Vector
	a.Each(func(x *app.Allocation) bool {
		if x.Placeholder && x.Pending() {
			phs = append(phs, x)
			sum.Inc(x.Res)
		}
		return true
	})
	slices.SortFunc(phs, func(x, y *app.Allocation) int {
		if x.Priority != y.Priority {
			return int(y.Priority) - int(x.Priority)
		}
		return strings.Compare(x.Key, y.Key)
	})
	return phs, sum
}

// hasPendingPlaceholder reports whether a has a placeholder still to place.
func hasPendingPlaceholder(a *app.App) bool {
	found := false
	a.Each(func(x *app.Allocation) bool {
		found = x.Placeholder && x.Pending()
		return !found
	})
	return found
}

// waitsForGang reports whether a real ask of a must wait: the application
// is a gang that has not started running (all placeholders placed) and
// whose placeholder timeout has not fired.
func waitsForGang(a *app.App) bool {
	return !a.PlaceholderAsk.IsZero() && !a.GangTimedOut && (a.State == app.New || a.State == app.Accepted)
}
