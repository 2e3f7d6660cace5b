package partition

import (
	"fmt"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/event"
)

// Requeued says what Requeue did with a failed binding.
type Requeued uint8

// What Requeue did.
const (
	// RequeuedPending: the allocation went back to pending.
	RequeuedPending Requeued = iota + 1
	// RequeuedReleased: the scheduler was already taking the allocation
	// away; it was released instead.
	RequeuedReleased
	// RequeuedLost: the allocation had been released with its node; its
	// ask came back as pending.
	RequeuedLost
	// RequeuedTimedOut: the allocation was a placeholder released with
	// its node whose gang has timed out since; the RM is told it is
	// released for the timeout.
	RequeuedTimedOut
)

// Requeue handles the RM's report that it could not bind allocation key of
// application appID (SI TerminationType SCHEDULING_FAILED_ON_RM; the
// Kubernetes shim sends it when assuming or binding the pod failed and
// waits for a new allocation of the same key). The allocation leaves its
// node, its queues and its user and group usage and becomes a pending ask
// again under the same key, with its resources, priority, tags, task group,
// placeholder flag, required node and creation time, so a later pass
// places it again; the RM hears only of that new allocation, never of a
// release.
//
// The ask avoids the node that failed for its next placement when any
// other node fits (the failure is usually local to the node: a volume that
// cannot attach, a node going away); when that node is the only one that
// fits, it may go back there. The preference lasts for one placement: a
// failure on the new node moves it to that node.
//
// A key the application no longer has because its node was removed while
// the RM was binding it (RemoveNode told the RM STOPPED_BY_RM, which the
// Kubernetes shim does not apply to a pod it is still binding) comes back
// from the partition's record of such allocations (lost.go) as a pending
// ask with its resources, priority, tags, task group, placeholder flag,
// required node and creation time. The record is used once; it is gone
// when the RM released the key or its application, when the application
// ended, and LostLifetime after the removal. A placeholder whose gang has
// timed out since is released for the timeout instead, as a pending
// placeholder is when the gang times out; a required-node ask comes back
// and waits for its node like any required-node ask of an unknown node.
//
// An allocation the scheduler is already taking away is not requeued: for a
// placeholder whose replacement is in flight the failed binding completes
// its release and the real ask linked to it waits for a node again; for a
// preemption victim it confirms the preemption; for a placeholder released
// for its gang's timeout (or its application's end) it completes that
// release, which the RM has already been told of. An unknown application or
// key, an ask that is still pending, or a real ask waiting for its
// placeholder's swap (not yet sent to the RM) is an error and changes
// nothing.
func (p *Partition) Requeue(appID, key string, now time.Time) (Requeued, error) {
	a, x, err := p.allocationOf(appID, key)
	if err != nil {
		if r := p.lost.take(appID, key, now); r != nil {
			return p.requeueLost(r, now)
		}
		return 0, err
	}
	if x.Pending() || x.Linked() {
		return 0, fmt.Errorf("allocation %s: not allocated", key)
	}
	if x.ReplacedBy() != nil || x.Preempted || x.Released {
		p.releaseAllocation(a, key, StoppedByRM, now)
		return RequeuedReleased, nil
	}
	failed := x.NodeID
	if n, ok := p.nodes[failed]; ok && n.RemoveAlloc(x) {
		p.index.Update(n)
	}
	if err := a.Requeue(x, now); err != nil {
		return 0, err // checked above: cannot happen
	}
	x.SetAvoid(failed)
	leaf := p.leafOf(a)
	leaf.Apply(a, neg(x.Res), x.Res, x.Priority, 1)
	_ = p.users.Release(a.User, a.Group, a.QueuePath, a.ID, x.Res, false)
	p.emitApp(event.Remove, releaseDetail[SchedulingFailedOnRM], a.ID, key,
		"scheduling failed on the RM on node "+failed, &x.Res, now)
	p.emitNode(event.Remove, event.NodeAlloc, failed, key, "", &x.Res, now)
	p.emitApp(event.Add, event.AppRequest, a.ID, key, "", &x.Res, now)
	p.dirty = true
	return RequeuedPending, nil
}

// requeueLost brings back the ask of r, an allocation released with its
// node, after the RM reported that it could not bind it.
func (p *Partition) requeueLost(r *lostAsk, now time.Time) (Requeued, error) {
	a, ok := p.apps[r.ask.AppID]
	if !ok {
		return 0, fmt.Errorf("allocation %s: unknown application %s", r.ask.Key, r.ask.AppID) // dropped with it: cannot happen
	}
	if r.ask.Placeholder && a.GangTimedOut {
		p.Out.Released = append(p.Out.Released, Released{
			Partition: p.Name, AppID: a.ID, AllocationKey: r.ask.Key, Termination: Timeout,
			Message: "releasing pending placeholders on placeholder timeout", Again: true,
		})
		return RequeuedTimedOut, nil
	}
	x := new(app.Allocation)
	*x = r.ask
	if err := p.addAskTo(a, x, now, app.HashKey(x.Key), true); err != nil {
		return 0, err
	}
	if x.Placeholder {
		// the same placeholder, still wanted: neither a new one of its
		// group nor timed out, as its removal counted it
		a.PlaceholderBack(x.TaskGroup)
	}
	return RequeuedLost, nil
}
