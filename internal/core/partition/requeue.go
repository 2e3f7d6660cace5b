package partition

import (
	"fmt"
	"time"

	"github.com/paddock-sched/paddock/internal/core/event"
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
// An allocation the scheduler is already taking away is not requeued: for a
// placeholder whose replacement is in flight the failed binding completes
// its release and the real ask linked to it waits for a node again; for a
// preemption victim it confirms the preemption. An unknown application or
// key, an ask that is still pending, or a real ask waiting for its
// placeholder's swap (not yet sent to the RM) is an error and changes
// nothing.
func (p *Partition) Requeue(appID, key string, now time.Time) error {
	a, x, err := p.allocationOf(appID, key)
	if err != nil {
		return err
	}
	if x.Pending() || x.Linked() {
		return fmt.Errorf("allocation %s: not allocated", key)
	}
	if x.ReplacedBy() != nil || x.Preempted {
		p.releaseAllocation(a, key, StoppedByRM, now)
		return nil
	}
	failed := x.NodeID
	if n, ok := p.nodes[failed]; ok && n.RemoveAlloc(x) {
		p.index.Update(n)
	}
	if err := a.Requeue(x, now); err != nil {
		return err // checked above: cannot happen
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
	return nil
}
