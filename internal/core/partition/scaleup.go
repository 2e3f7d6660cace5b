package partition

import (
	"fmt"
	"slices"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
)

// ScaleUpInterval is how often asks waiting for cluster resources are
// reported to the RM (reference §2.18: every second).
const ScaleUpInterval = time.Second

// WaitingReason is the message of the autoscaling signal.
const WaitingReason = "request is waiting for cluster resources become available"

// reportWaiting tells the RM, once per ask, about asks that fit their
// queues' configured max (the cluster size aside) and their user's limits
// but no node, so an autoscaler can add nodes. Required-node asks and asks
// that will replace a placeholder are left out.
func (p *Partition) reportWaiting(now time.Time) {
	if !p.lastWaiting.IsZero() && now.Sub(p.lastWaiting) < ScaleUpInterval {
		return
	}
	p.lastWaiting = now
	ids := make([]string, 0, len(p.apps))
	for id, a := range p.apps {
		if a.PendingCount() > 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		a := p.apps[id]
		leaf := p.leafOf(a)
		if leaf == nil {
			continue
		}
		head := p.users.Headroom(a.User, a.Group, a.QueuePath)
		a.EachWaiting(waitsForNodes, func(x *app.Allocation) {
			if x.RequiredNode != "" || (x.TaskGroup != "" && !x.Placeholder && a.Placeholder(x.TaskGroup) != nil) {
				return
			}
			for q := leaf; q.Parent != nil; q = q.Parent {
				if !q.Max.Allows(x.Res) {
					return
				}
			}
			if !head.Allows(x.Res) {
				return
			}
			x.ScaleUp = true
			p.Out.Waiting = append(p.Out.Waiting, Waiting{AppID: a.ID, AllocationKey: x.Key, Reason: WaitingReason})
		})
	}
	p.reportOverQuota(ids, now)
}

// reportOverQuota sends, once per ask, the request event that a pending ask
// does not fit the max of a queue on its path (reference §7, "exceeds
// queue headroom"); the Kubernetes shim turns it into an event of the pod,
// where `kubectl describe pod` shows why the pod stays Pending. The root's
// max (the cluster size) is left to the waiting signal above.
func (p *Partition) reportOverQuota(ids []string, now time.Time) {
	if p.noEvents {
		return
	}
	for _, id := range ids {
		a := p.apps[id]
		a.EachOverQuota(overQueueMax, func(x *app.Allocation) {
			path := a.Why(x).Object
			avail := "unknown"
			if q, ok := p.tree.Queue(path); ok {
				avail = p.reg.FormatQuota(q.Headroom())
			}
			p.emitRequest(x.Key, a.ID, fmt.Sprintf("Request '%s' does not fit in queue '%s' (requested %s, available %s)",
				x.Key, path, p.reg.Format(x.Res), avail), x.Res, now)
			x.QuotaReported = true
		})
	}
}

// overQueueMax reports whether an ask passed over for reason r is held by
// a queue's max below the root.
func overQueueMax(r app.Reason) bool {
	return r.Kind == app.QueueMax && r.Object != config.RootQueue
}

// waitsForNodes reports whether an ask passed over for reason r waits for
// nodes: nothing fit it, or only the root's max (the cluster size) stopped
// it.
func waitsForNodes(r app.Reason) bool {
	return r.Kind == app.NoNodeFits || r.Kind == app.Reserved || r.Kind == app.QueueMax && r.Object == config.RootQueue
}
