package partition

import (
	"slices"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/queue"
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
	// only the leaves below queues with pending asks hold applications
	// with pending asks (the tree counts them on every level); walking
	// them, not every live application, matters when thousands run and
	// ask for nothing more (a quarter of a long replay's CPU)
	var waiting []*app.App
	var walk func(q *queue.Queue)
	walk = func(q *queue.Queue) {
		if q.PendingAsks() == 0 {
			return
		}
		q.EachApp(func(a *app.App) {
			if a.PendingCount() > 0 {
				waiting = append(waiting, a)
			}
		})
		q.EachChild(walk)
	}
	walk(p.tree.Root)
	slices.SortFunc(waiting, func(a, b *app.App) int { return strings.Compare(a.ID, b.ID) })
	for _, a := range waiting {
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
}

// waitsForNodes reports whether an ask passed over for reason r waits for
// nodes: nothing fit it, or only the root's max (the cluster size) stopped
// it.
func waitsForNodes(r app.Reason) bool {
	return r.Kind == app.NoNodeFits || r.Kind == app.Reserved || r.Kind == app.QueueMax && r.Object == config.RootQueue
}
