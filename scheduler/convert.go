package scheduler

import (
	"maps"

	"github.com/paddock-sched/paddock/internal/core/snapshot"
	"github.com/paddock-sched/paddock/internal/resource"
)

// fromSnapshot copies a snapshot into the public view.
func fromSnapshot(s *snapshot.Snapshot) *View {
	v := &View{Generation: s.Generation, Partitions: make([]*Partition, 0, len(s.Partitions))}
	for _, sp := range s.Partitions {
		res := func(x resource.Vector) Resource { return Resource(sp.Map(x)) }
		p := &Partition{Name: sp.Name, RMID: sp.RMID, Capacity: res(sp.Capacity)}
		sp.EachQueue(func(q *snapshot.Queue) {
			p.Queues = append(p.Queues, &Queue{
				Path: q.Path, Leaf: q.Leaf, State: q.State,
				Max: Resource(sp.QuotaMap(q.Max)), Guaranteed: Resource(sp.QuotaMap(q.Guaranteed)),
				Allocated: res(q.Allocated), Pending: res(q.Pending), Apps: append([]string(nil), q.Apps...),
			})
		})
		p.Apps = copyApps(sp.Apps, res)
		p.Terminated = copyApps(sp.Done, res)
		for _, n := range sp.Nodes {
			vn := &Node{
				ID: n.ID, Attributes: maps.Clone(n.Attributes), Schedulable: n.Schedulable,
				Capacity: res(n.Capacity), Allocated: res(n.Allocated), Occupied: res(n.Occupied), Available: res(n.Available),
			}
			for _, a := range n.Allocations {
				vn.Allocations = append(vn.Allocations, copyAllocation(a, res))
			}
			for _, f := range n.Foreign {
				vn.Foreign = append(vn.Foreign, &Allocation{Key: f.Key, NodeID: n.ID, Resource: res(f.Res), Foreign: true})
			}
			p.Nodes = append(p.Nodes, vn)
		}
		v.Partitions = append(v.Partitions, p)
	}
	return v
}

func copyApps(in []*snapshot.App, res func(resource.Vector) Resource) []*App {
	out := make([]*App, 0, len(in))
	for _, a := range in {
		va := &App{
			ID: a.ID, Queue: a.Queue, User: a.User, Groups: append([]string(nil), a.Groups...),
			State: a.State.String(), Submitted: a.Submitted,
			Allocated: res(a.Allocated), Pending: res(a.Pending), Tags: maps.Clone(a.Tags),
		}
		for _, k := range a.Asks {
			va.Asks = append(va.Asks, &Ask{
				Key: k.Key, AppID: k.AppID, Resource: res(k.Res), Priority: k.Priority, Placeholder: k.Placeholder,
				TaskGroup: k.TaskGroup, RequiredNode: k.RequiredNode, Tags: maps.Clone(k.Tags),
			})
		}
		for _, x := range a.Allocations {
			va.Allocations = append(va.Allocations, copyAllocation(x, res))
		}
		out = append(out, va)
	}
	return out
}

func copyAllocation(a *snapshot.Allocation, res func(resource.Vector) Resource) *Allocation {
	return &Allocation{
		Key: a.Key, AppID: a.AppID, NodeID: a.NodeID, Resource: res(a.Res), Priority: a.Priority,
		Placeholder: a.Placeholder, TaskGroup: a.TaskGroup, Tags: maps.Clone(a.Tags),
	}
}
