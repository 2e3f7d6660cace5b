package health

import (
	"fmt"
	"slices"
	"strings"

	"github.com/paddock-sched/paddock/internal/core/snapshot"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Check is the result of one health check. The JSON keys are the Go field
// names (capitalised), as the reference serves them.
type Check struct {
	Name             string
	Succeeded        bool
	Description      string
	DiagnosisMessage string
}

// Result is one run of all checks.
type Result struct {
	Healthy      bool
	HealthChecks []Check
}

// maxListed is how many problems a diagnosis message names.
const maxListed = 10

// problems collects the findings of one check.
type problems struct {
	list []string
	n    int
}

func (p *problems) add(format string, args ...any) {
	p.n++
	if len(p.list) < maxListed {
		p.list = append(p.list, fmt.Sprintf(format, args...))
	}
}

func (p *problems) check(name, desc string) Check {
	c := Check{Name: name, Succeeded: p.n == 0, Description: desc}
	if p.n > 0 {
		c.DiagnosisMessage = strings.Join(p.list, "; ")
		if p.n > len(p.list) {
			c.DiagnosisMessage += fmt.Sprintf("; and %d more", p.n-len(p.list))
		}
	}
	return c
}

// Evaluate runs every check on a snapshot. prev are the counters of the
// previous run: the error checks fail only for errors counted since then,
// so they recover once the errors stop.
func Evaluate(s *snapshot.Snapshot, prev snapshot.Counters) Result {
	checks := []Check{
		counterCheck("Scheduling errors",
			"Check that no ask or allocation from a resource manager was rejected since the last check",
			"asks or allocations rejected", s.Counters.RejectedAllocations, prev.RejectedAllocations),
		counterCheck("Failed nodes",
			"Check that no node request from a resource manager was rejected since the last check",
			"node requests rejected", s.Counters.RejectedNodes, prev.RejectedNodes),
		negativeResources(s),
		consistency(s),
		reservations(s),
		orphansOnNodes(s),
		orphansOnApps(s),
	}
	r := Result{Healthy: true, HealthChecks: checks}
	for _, c := range checks {
		r.Healthy = r.Healthy && c.Succeeded
	}
	return r
}

func counterCheck(name, desc, what string, cur, prev uint64) Check {
	var p problems
	// a counter below prev was reset (a new service): nothing new
	if cur > prev {
		p.add("%d %s since the last check (%d in total)", cur-prev, what, cur)
	}
	return p.check(name, desc)
}

func negativeResources(s *snapshot.Snapshot) Check {
	var p problems
	for _, pt := range s.Partitions {
		neg := func(v resource.Vector, format string, args ...any) {
			if v.HasNegative() {
				p.add(format+": %v", append(args, pt.Map(v))...)
			}
		}
		neg(pt.Capacity, "partition %s: negative capacity", pt.Name)
		pt.EachQueue(func(q *snapshot.Queue) {
			neg(q.Allocated, "partition %s queue %s: negative allocated", pt.Name, q.Path)
			neg(q.Pending, "partition %s queue %s: negative pending", pt.Name, q.Path)
		})
		for _, n := range pt.Nodes {
			neg(n.Capacity, "partition %s node %s: negative capacity", pt.Name, n.ID)
			neg(n.Allocated, "partition %s node %s: negative allocated", pt.Name, n.ID)
			neg(n.Occupied, "partition %s node %s: negative occupied", pt.Name, n.ID)
			if !forced(n) {
				// allocations the RM forced (recovery) may overcommit a node
				neg(n.Available, "partition %s node %s: negative available", pt.Name, n.ID)
			}
		}
		for _, a := range pt.Apps {
			neg(a.Allocated, "partition %s application %s: negative allocated", pt.Name, a.ID)
			neg(a.Pending, "partition %s application %s: negative pending", pt.Name, a.ID)
		}
	}
	return p.check("Negative resources", "Check for negative resources in the partitions, queues, nodes and applications")
}

func forced(n *snapshot.Node) bool {
	for _, x := range n.Allocations {
		if x.Forced {
			return true
		}
	}
	return false
}

func consistency(s *snapshot.Snapshot) Check {
	var p problems
	for _, pt := range s.Partitions {
		var capacity, nodeAlloc resource.Vector
		for _, n := range pt.Nodes {
			capacity.Inc(n.Capacity)
			nodeAlloc.Inc(n.Allocated)
			var sum resource.Vector
			for _, x := range n.Allocations {
				sum.Inc(x.Res)
			}
			if sum != n.Allocated {
				p.add("partition %s node %s: allocated %v, its allocations sum to %v", pt.Name, n.ID, pt.Map(n.Allocated), pt.Map(sum))
			}
			if n.Capacity.Sub(n.Allocated).Sub(n.Occupied) != n.Available {
				p.add("partition %s node %s: capacity is not allocated + occupied + available", pt.Name, n.ID)
			}
		}
		if capacity != pt.Capacity {
			p.add("partition %s: capacity %v, nodes sum to %v", pt.Name, pt.Map(pt.Capacity), pt.Map(capacity))
		}
		leafAlloc := map[string]resource.Vector{}
		leafPend := map[string]resource.Vector{}
		for _, a := range pt.Apps {
			var al, pe resource.Vector
			for _, x := range a.Allocations {
				al.Inc(x.Res)
			}
			for _, x := range a.Asks {
				pe.Inc(x.Res)
			}
			if al != a.Allocated {
				p.add("partition %s application %s: allocated %v, its allocations sum to %v", pt.Name, a.ID, pt.Map(a.Allocated), pt.Map(al))
			}
			if pe != a.Pending {
				p.add("partition %s application %s: pending %v, its asks sum to %v", pt.Name, a.ID, pt.Map(a.Pending), pt.Map(pe))
			}
			v := leafAlloc[strings.ToLower(a.Queue)]
			v.Inc(a.Allocated)
			leafAlloc[strings.ToLower(a.Queue)] = v
			v = leafPend[strings.ToLower(a.Queue)]
			v.Inc(a.Pending)
			leafPend[strings.ToLower(a.Queue)] = v
		}
		pt.EachQueue(func(q *snapshot.Queue) {
			var al, pe resource.Vector
			if q.Leaf {
				al, pe = leafAlloc[strings.ToLower(q.Path)], leafPend[strings.ToLower(q.Path)]
			} else {
				for _, c := range q.Children {
					al.Inc(c.Allocated)
					pe.Inc(c.Pending)
				}
			}
			if al != q.Allocated {
				p.add("partition %s queue %s: allocated %v, recomputed %v", pt.Name, q.Path, pt.Map(q.Allocated), pt.Map(al))
			}
			if pe != q.Pending {
				p.add("partition %s queue %s: pending %v, recomputed %v", pt.Name, q.Path, pt.Map(q.Pending), pt.Map(pe))
			}
		})
		if pt.Root != nil && pt.Root.Allocated != nodeAlloc {
			p.add("partition %s: root queue allocated %v, nodes hold %v", pt.Name, pt.Map(pt.Root.Allocated), pt.Map(nodeAlloc))
		}
	}
	return p.check("Consistency of data", "Check that partition, node, application and queue totals match what they are made of")
}

func reservations(s *snapshot.Snapshot) Check {
	var p problems
	for _, pt := range s.Partitions {
		for _, r := range pt.Reservations {
			n, ok := pt.Node(r.NodeID)
			if !ok {
				p.add("partition %s: reservation of %s/%s on unknown node %s", pt.Name, r.AppID, r.AskKey, r.NodeID)
				continue
			}
			if n.ReservedFor == nil || *n.ReservedFor != r {
				p.add("partition %s: node %s does not record its reservation for %s/%s", pt.Name, r.NodeID, r.AppID, r.AskKey)
			}
			a, ok := pt.App(r.AppID)
			if !ok || a.State.String() == "Rejected" {
				p.add("partition %s: node %s reserved for unknown application %s", pt.Name, r.NodeID, r.AppID)
				continue
			}
			pending := false
			for _, x := range a.Asks {
				pending = pending || x.Key == r.AskKey
			}
			if !pending {
				p.add("partition %s: node %s reserved for %s/%s, which is not pending", pt.Name, r.NodeID, r.AppID, r.AskKey)
			}
		}
	}
	return p.check("Reservation check", "Check that every reserved node, application and ask exists and the ask is pending")
}

func orphansOnNodes(s *snapshot.Snapshot) Check {
	var p problems
	for _, pt := range s.Partitions {
		for _, n := range pt.Nodes {
			for _, x := range n.Allocations {
				a, ok := pt.App(x.AppID)
				if !ok {
					p.add("partition %s node %s: allocation %s of unknown application %s", pt.Name, n.ID, x.Key, x.AppID)
					continue
				}
				if !holdsSorted(a.Allocations, x) {
					p.add("partition %s node %s: allocation %s is not listed by application %s", pt.Name, n.ID, x.Key, x.AppID)
				}
			}
		}
	}
	return p.check("Orphan allocation on node check", "Check that every allocation on a node belongs to an application")
}

func orphansOnApps(s *snapshot.Snapshot) Check {
	var p problems
	for _, pt := range s.Partitions {
		for _, a := range pt.Apps {
			for _, x := range a.Allocations {
				n, ok := pt.Node(x.NodeID)
				if !ok {
					p.add("partition %s application %s: allocation %s on unknown node %s", pt.Name, a.ID, x.Key, x.NodeID)
					continue
				}
				if !holds(n.Allocations, x) {
					p.add("partition %s application %s: allocation %s is not listed by node %s", pt.Name, a.ID, x.Key, x.NodeID)
				}
			}
		}
	}
	return p.check("Orphan allocation on app check", "Check that every allocation of an application is on a node that lists it")
}

func holds(list []*snapshot.Allocation, x *snapshot.Allocation) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

// holdsSorted is holds for a list sorted by key.
func holdsSorted(list []*snapshot.Allocation, x *snapshot.Allocation) bool {
	i, ok := slices.BinarySearchFunc(list, x.Key, func(y *snapshot.Allocation, k string) int { return strings.Compare(y.Key, k) })
	return ok && list[i] == x
}
