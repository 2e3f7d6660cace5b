package partition

import (
	"slices"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/resource"
)

// ScaleUpInterval is how often asks waiting for cluster resources are
// reported to the RM (reference §2.18: every second).
const ScaleUpInterval = time.Second

// WaitingReason is the message of the autoscaling signal.
const WaitingReason = "request is waiting for cluster resources become available"

// reportWaiting tells the RM, once per ask, about asks that fit their
// queues' room (the configured max less what is allocated, on every level
// below the root: the cluster size aside) and their user's headroom but
// no node, so an autoscaler can add nodes; as the reference's
// outstanding requests, the asks of a leaf's applications share its room
// and those of one application their user's headroom, the asks reported
// earlier and still pending first. Required-node asks and asks that will
// replace a placeholder are left out.
func (p *Partition) reportWaiting(now time.Time) {
	if !p.lastWaiting.IsZero() && now.Sub(p.lastWaiting) < ScaleUpInterval {
		if p.tree.Root.PendingAsks() > 0 {
			// asks that came since the last report are looked at once
			// the interval is over, even if nothing else changes then
			p.wakeAt(p.lastWaiting.Add(ScaleUpInterval))
		}
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
	room := map[*queue.Queue]*resource.Quota{}
	for _, a := range waiting {
		leaf := p.leafOf(a)
		if leaf == nil {
			continue
		}
		r := room[leaf]
		if r == nil {
			h := leaf.ConfiguredHeadroom()
			r = &h
			room[leaf] = r
		}
		*r = r.Headroom(a.Reported)
	}
	for _, a := range waiting {
		r := room[p.leafOf(a)]
		if r == nil {
			continue
		}
		head := p.users.Headroom(a.User, a.Group, a.QueuePath).Headroom(a.Reported)
		a.EachWaiting(waitsForNodes, func(x *app.Allocation) {
			if !r.Allows(x.Res) || !head.Allows(x.Res) {
				return
			}
			*r, head = r.Headroom(x.Res), head.Headroom(x.Res)
			if x.RequiredNode != "" || (x.TaskGroup != "" && !x.Placeholder && a.Placeholder(x.TaskGroup) != nil) {
				return
			}
			a.ReportWaiting(x)
			p.Out.Waiting = append(p.Out.Waiting, Waiting{AppID: a.ID, AllocationKey: x.Key, Reason: WaitingReason})
		})
	}
}

// waitsForNodes reports whether an ask passed over for reason r waits for
// nodes: nothing fit it (alone, or with the rest of its gang), or only the
// root's max (the cluster size) stopped it.
func waitsForNodes(r app.Reason) bool {
	switch r.Kind {
	case app.NoNodeFits, app.Reserved, app.GangDoesNotFit:
		return true
	}
	return r.Kind == app.QueueMax && r.Object == config.RootQueue
}
