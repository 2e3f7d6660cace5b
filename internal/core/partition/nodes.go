package partition

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/resource"
)

// AddNode registers a node. Duplicate IDs, negative capacities and a
// capacity or occupation that would take a partition total above
// resource.MaxQuantity (bounds.go) are rejected and change nothing.
func (p *Partition) AddNode(id string, capacity, occupied resource.Vector, attrs map[string]string, schedulable bool) error {
	if id == "" {
		return fmt.Errorf("node without ID")
	}
	if _, dup := p.nodes[id]; dup {
		return fmt.Errorf("node %s: already registered in partition %s", id, p.Name)
	}
	if capacity.HasNegative() || occupied.HasNegative() {
		return fmt.Errorf("node %s: negative resource", id)
	}
	what := "node " + id
	if err := p.boundCapacity(what, resource.Vector{}, capacity); err != nil {
		return err
	}
	if err := p.boundForeign(what, resource.Vector{}, occupied); err != nil {
		return err
	}
	n := node.New(id, capacity, attrs)
	n.SetBounds(p.bounds)
	n.Occupied = occupied
	n.Schedulable = schedulable
	p.nodes[id] = n
	p.index.Add(n)
	p.cluster.Inc(capacity)
	p.occupied.Inc(occupied)
	if l := p.log.Node; on(l) {
		debug(l, "node added", slog.String("nodeID", id), slog.String("capacity", p.reg.Format(capacity)), slog.Bool("schedulable", schedulable))
	}
	// the reference's order: the node's schedulable state, the root's
	// max (the cluster's size), then the node itself
	p.emitNode(event.Set, event.NodeSchedulable, id, "", "schedulable: "+strconv.FormatBool(schedulable), nil, time.Time{})
	p.rootMaxChanged(capacity, time.Time{})
	p.emitNode(event.Add, event.DetailsNone, id, "", msgNodeAdded, &capacity, time.Time{})
	p.sizeDirty, p.dirty = true, true
	return nil
}

// UpdateNode changes a node's capacity and the resources foreign workloads
// occupy on it.
func (p *Partition) UpdateNode(id string, capacity, occupied resource.Vector) error {
	n, ok := p.nodes[id]
	if !ok {
		return fmt.Errorf("node %s: unknown in partition %s", id, p.Name)
	}
	if capacity.HasNegative() || occupied.HasNegative() {
		return fmt.Errorf("node %s: negative resource", id)
	}
	what := "node " + id
	if err := p.boundCapacity(what, n.Capacity, capacity); err != nil {
		return err
	}
	if err := p.boundForeign(what, n.Occupied, occupied); err != nil {
		return err
	}
	p.cluster.Dec(n.Capacity)
	p.cluster.Inc(capacity)
	p.occupied.Dec(n.Occupied)
	p.occupied.Inc(occupied)
	if n.Capacity != capacity {
		p.emitNode(event.Set, event.NodeCapacity, id, "", "", &capacity, time.Time{})
		p.rootMaxChanged(capacity.Sub(n.Capacity), time.Time{})
	}
	if n.Occupied != occupied {
		p.emitNode(event.Set, event.NodeOccupied, id, "", "", &occupied, time.Time{})
	}
	n.Capacity = capacity
	n.Occupied = occupied
	p.index.Update(n)
	p.sizeDirty, p.dirty = true, true
	return nil
}

// SetSchedulable drains a node (false) or returns it to scheduling (true).
func (p *Partition) SetSchedulable(id string, schedulable bool) error {
	n, ok := p.nodes[id]
	if !ok {
		return fmt.Errorf("node %s: unknown in partition %s", id, p.Name)
	}
	if n.Schedulable != schedulable {
		if l := p.log.Node; on(l) {
			debug(l, "node schedulable changed", slog.String("nodeID", id), slog.Bool("schedulable", schedulable))
		}
		p.emitNode(event.Set, event.NodeSchedulable, id, "", "schedulable: "+strconv.FormatBool(schedulable), nil, time.Time{})
	}
	n.Schedulable = schedulable
	p.index.Update(n)
	p.dirty = true
	return nil
}

// RemoveNode decommissions a node: every allocation on it is released and
// reported to the RM, then the node is forgotten. The allocations the RM
// may still have been binding are remembered for a while (lost.go), so
// that its report of a failed binding places them again (Requeue).
func (p *Partition) RemoveNode(id string, now time.Time) error {
	n, ok := p.nodes[id]
	if !ok {
		return fmt.Errorf("node %s: unknown in partition %s", id, p.Name)
	}
	if l := p.log.Node; on(l) {
		debug(l, "node removed", slog.String("nodeID", id), slog.Int("allocations", len(n.Allocations())))
	}
	msg := "Node " + id + " Removed"
	for _, x := range n.Allocations() {
		a := p.apps[x.AppID]
		if a == nil {
			continue
		}
		p.rememberLost(x, id, now)
		p.releaseAllocation(a, x.Key, Unknown, now)
		p.Out.Released = append(p.Out.Released, Released{
			Partition: p.Name, AppID: x.AppID, AllocationKey: x.Key, Termination: StoppedByRM, Message: msg,
		})
	}
	p.unreserveNode(n)
	p.emitNode(event.Remove, event.NodeDecommission, id, "", msgNodeRemoved, nil, now)
	p.index.Remove(n)
	delete(p.nodes, id)
	for k := range n.Foreign {
		delete(p.foreignOn, k)
	}
	p.cluster.Dec(n.Capacity)
	p.occupied.Dec(n.Occupied)
	p.rootMaxChanged(n.Capacity, now)
	p.sizeDirty, p.dirty = true, true
	return nil
}

// AddForeign records a foreign allocation (another scheduler's workload)
// on a node: it occupies resources there and nothing else. A key already
// on another node moves to this one. A zero f.Created keeps the creation
// time of the key already known, else is now.
func (p *Partition) AddForeign(nodeID, key string, f node.Foreign, now time.Time) error {
	res := f.Res
	n, ok := p.nodes[nodeID]
	if !ok {
		return fmt.Errorf("foreign allocation %s: unknown node %s", key, nodeID)
	}
	if res.HasNegative() {
		return fmt.Errorf("foreign allocation %s: negative resource", key)
	}
	var old resource.Vector
	prev := p.foreignOn[key]
	if prev != nil {
		x := prev.Foreign[key]
		old = x.Res
		if f.Created.IsZero() {
			f.Created = x.Created
		}
	}
	if f.Created.IsZero() {
		f.Created = now
	}
	if err := p.boundForeign("foreign allocation "+key, old, res); err != nil {
		return err
	}
	if prev != nil && prev != n {
		p.RemoveForeign(key)
		old = resource.Vector{}
	}
	n.Occupied.Dec(old)
	p.occupied.Dec(old)
	n.Foreign[key] = f
	p.foreignOn[key] = n
	n.Occupied.Inc(res)
	p.occupied.Inc(res)
	p.index.Update(n)
	if prev != n {
		p.emitNode(event.Add, event.NodeAlloc, nodeID, key, "", &res, time.Time{})
	}
	return nil
}

// RemoveForeign forgets a foreign allocation wherever it is.
func (p *Partition) RemoveForeign(key string) bool {
	n := p.foreignOn[key]
	if n == nil {
		return false
	}
	res := n.Foreign[key].Res
	delete(n.Foreign, key)
	delete(p.foreignOn, key)
	n.Occupied.Dec(res)
	p.occupied.Dec(res)
	p.index.Update(n)
	p.dirty = true
	p.emitNode(event.Remove, event.NodeAlloc, n.ID, key, "", &res, time.Time{})
	return true
}
