package partition

import (
	"fmt"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/resource"
)

// WhyPending explains a pending ask: the typed reason of the last pass
// and, for asks that fit no node, how many nodes lack each resource.
type WhyPending struct {
	Reason app.Reason
	// Nodes is the number of nodes in the partition; Unschedulable and
	// Reserved count those that take no normal work.
	Nodes, Unschedulable, Reserved int
	// ShortOn counts, per resource name, the schedulable nodes whose free
	// amount is below the ask's.
	ShortOn map[string]int
}

// Why explains why a pending ask is pending. The node counts are computed
// on demand (a scan of the nodes), never on the scheduling path.
func (p *Partition) Why(appID, key string) (WhyPending, error) {
	a, ok := p.App(appID)
	if !ok {
		return WhyPending{}, fmt.Errorf("application %s: unknown in partition %s", appID, p.Name)
	}
	x, ok := a.Allocation(key)
	if !ok {
		return WhyPending{}, fmt.Errorf("allocation %s: unknown in application %s", key, appID)
	}
	if !x.Pending() {
		return WhyPending{}, fmt.Errorf("allocation %s: allocated on node %s, not pending", key, x.NodeID)
	}
	w := WhyPending{Reason: a.Why(x), Nodes: len(p.nodes), ShortOn: map[string]int{}}
	p.nodeIndex().Ascend(func(n *node.Node) bool {
		switch {
		case !n.Schedulable:
			w.Unschedulable++
		case n.ReservedFor != "":
			w.Reserved++
		default:
			avail := n.Available()
			for i, v := range x.Res {
				if v > 0 && v > avail[i] {
					w.ShortOn[p.reg.Name(resource.Index(i))]++
				}
			}
		}
		return true
	})
	return w, nil
}
