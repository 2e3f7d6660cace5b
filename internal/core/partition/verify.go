package partition

import (
	"errors"
	"fmt"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Verify recomputes every roll-up of the partition from scratch and
// returns an error describing each difference: node allocations, cluster
// size, application totals, queue allocated and pending sums along the
// tree, running-application counts, and nodes over capacity.
func (p *Partition) Verify() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	var cluster, occupied resource.Vector
	nodeAlloc := map[string]resource.Vector{}
	foreign := 0
	for id, n := range p.nodes {
		cluster.Inc(n.Capacity)
		occupied.Inc(n.Occupied)
		for k := range n.Foreign {
			if p.foreignOn[k] != n {
				bad("node %s: foreign allocation %s not indexed to it", id, k)
			}
		}
		foreign += len(n.Foreign)
		if !n.Capacity.Sub(n.Occupied).Sub(n.Allocated).Add(n.Allocated).Fits(n.Capacity) {
			bad("node %s: inconsistent", id)
		}
		nodeAlloc[id] = resource.Vector{}
	}
	if cluster != p.cluster {
		bad("cluster %v, nodes sum to %v", p.cluster, cluster)
	}
	if occupied != p.occupied {
		bad("occupied %v, nodes sum to %v", p.occupied, occupied)
	}
	if foreign != len(p.foreignOn) {
		bad("%d foreign allocations indexed, nodes hold %d", len(p.foreignOn), foreign)
	}
	leafAlloc := map[string]resource.Vector{}
	leafPend := map[string]resource.Vector{}
	leafAsks := map[string]int{}
	for id, a := range p.apps {
		var al, pe, rep resource.Vector
		np, na := 0, 0
		a.Each(func(x *app.Allocation) bool {
			if x.Linked() {
				if !x.Replacing().Released || x.Replacing().ReplacedBy() != x {
					bad("app %s: ask %s linked to placeholder %s without a back link", id, x.Key, x.Replacing().Key)
				}
				return true
			}
			if x.Pending() {
				pe.Inc(x.Res)
				np++
				if x.ScaleUp {
					rep.Inc(x.Res)
				}
				return true
			}
			al.Inc(x.Res)
			na++
			v, ok := nodeAlloc[x.NodeID]
			if !ok {
				bad("allocation %s of %s on unknown node %s", x.Key, id, x.NodeID)
				return true
			}
			v.Inc(x.Res)
			nodeAlloc[x.NodeID] = v
			if n := p.nodes[x.NodeID]; !n.Holds(x) {
				bad("node %s does not list allocation %s", x.NodeID, x.Key)
			}
			if leaf := p.leafOf(a); leaf != nil && !x.Res.Fits(leaf.MaxHeld) {
				bad("allocation %s of %s holds %v, more than its queue's bound %v", x.Key, id, x.Res, leaf.MaxHeld)
			}
			return true
		})
		if al != a.Allocated || pe != a.Pending || np != a.PendingCount() || na != a.AllocatedCount() {
			bad("app %s: allocated %v pending %v, recomputed %v %v", id, a.Allocated, a.Pending, al, pe)
		}
		if rep != a.Reported {
			bad("app %s: reported as waiting %v, recomputed %v", id, a.Reported, rep)
		}
		if q, ok := p.tree.Queue(a.QueuePath); !ok || !q.Leaf {
			bad("app %s in unknown or non-leaf queue %s", id, a.QueuePath)
		}
		v := leafAlloc[a.QueuePath]
		v.Inc(al)
		leafAlloc[a.QueuePath] = v
		v = leafPend[a.QueuePath]
		v.Inc(pe)
		leafPend[a.QueuePath] = v
		leafAsks[a.QueuePath] += np
	}
	for id, n := range p.nodes {
		if nodeAlloc[id] != n.Allocated {
			bad("node %s: allocated %v, allocations sum to %v", id, n.Allocated, nodeAlloc[id])
		}
		if n.Available().HasNegative() && !n.Forced() {
			bad("node %s: over capacity: capacity %v allocated %v occupied %v", id, n.Capacity, n.Allocated, n.Occupied)
		}
	}
	reservedNodes := 0
	for k, r := range p.reserved {
		x, ok := r.app.Allocation(r.ask.Key)
		if !ok || x != r.ask || !x.Pending() {
			bad("reservation %q: ask is gone or allocated", k)
		}
		if !r.node.HeldFor(r.app.ID, r.ask.Key) || p.nodes[r.node.ID] != r.node {
			bad("reservation %q: node %s does not hold it", k, r.node.ID)
		}
		if p.appReserved[r.app.ID] != k {
			bad("reservation %q: application %s does not list it", k, r.app.ID)
		}
	}
	for _, n := range p.nodes {
		if n.ReservedFor != "" {
			reservedNodes++
		}
	}
	if reservedNodes != len(p.reserved)+p.gangHeldNodes() || len(p.appReserved) != len(p.reserved) {
		bad("%d reserved nodes, %d reservations, %d gang holds, %d apps with a reservation", reservedNodes, len(p.reserved), p.gangHeldNodes(), len(p.appReserved))
	}
	p.verifyGangHolds(bad)
	p.verifyLost(bad)
	var walk func(q *queue.Queue) (resource.Vector, resource.Vector, int)
	walk = func(q *queue.Queue) (resource.Vector, resource.Vector, int) {
		al, pe, n := leafAlloc[q.Path], leafPend[q.Path], leafAsks[q.Path]
		for _, c := range q.Children() {
			ca, cp, cn := walk(c)
			al.Inc(ca)
			pe.Inc(cp)
			n += cn
		}
		if al != q.Allocated || pe != q.Pending || n != q.PendingAsks() {
			bad("queue %s: allocated %v pending %v asks %d, recomputed %v %v %d", q.Path, q.Allocated, q.Pending, q.PendingAsks(), al, pe, n)
		}
		return al, pe, n
	}
	walk(p.tree.Root)
	p.verifyPreempting(bad)
	p.verifyQuotaTriggers(bad)
	if err := p.tree.Verify(); err != nil {
		bad("queue ordering: %v", err)
	}
	if err := p.users.Verify(); err != nil {
		bad("user/group tracking: %v", err)
	}
	for _, a := range p.apps {
		if err := p.users.CheckEntry(a.ID, usageEntry(a)); err != nil {
			bad("user/group tracking: %v", err)
		}
	}
	// every user's tracked usage equals what its running apps hold
	perUser := map[string]resource.Vector{}
	for _, a := range p.apps {
		v := perUser[a.User]
		v.Inc(a.Allocated)
		perUser[a.User] = v
	}
	for user, want := range perUser {
		if p.users == nil {
			break // tracking is off
		}
		got := resource.Vector{}
		if u, ok := p.users.User(user); ok {
			for name, n := range u.Queues.ResourceUsage {
				if i, ok := p.reg.Index(name); ok {
					got[i] = n
				}
			}
		}
		if got != want {
			bad("user %s: tracked usage %v, apps hold %v", user, got, want)
		}
	}
	return errors.Join(errs...)
}
