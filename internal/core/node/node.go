// Package node owns the scheduler's view of a node: its capacity, what is
// allocated and occupied on it, whether it takes new work, and the ordered
// index that finds the best node for an ask in logarithmic time.
package node

import (
	"slices"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Attributes naming a node's instance type: the SI's, then the Kubernetes
// label a shim may pass through unchanged.
const (
	InstanceTypeAttribute = "si/instance-type"
	InstanceTypeLabel     = "node.kubernetes.io/instance-type"
)

// Node is one schedulable host of a partition. The partition mutates it;
// after any change to Capacity, Allocated, Occupied, Schedulable or the
// reservation, the owner calls Index.Update so the ordering stays right.
//
// A decision reads or writes the fields before the vectors and the first
// types of each vector, on a node that is usually cold: they come first,
// so that a decision touches four of the node's cache lines, not five.
type Node struct {
	ID string
	// InstanceType is the node's instance type from its attributes
	// (app.UnknownInstanceType when they do not say); allocations on the
	// node carry it for their application's resource history.
	InstanceType string
	// ReservedFor is the key of the ask holding a reservation on this node,
	// or "" when the node is not reserved; reservedApp is the ask's
	// application, since a key is unique within an application only.
	ReservedFor string
	// Schedulable is false while the node drains.
	Schedulable bool
	pg          *page // the index page holding the node, nil when not indexed
	// allocs are the scheduler's allocations on this node; each knows its
	// position (NodeSlot) so removal is O(1).
	allocs []*app.Allocation
	// bounds, when set, covers the allocations of the node (bounds.go);
	// beside allocs, on a cache line a placement touches anyway.
	bounds *Bounds
	// Capacity is the schedulable resource reported by the RM.
	Capacity resource.Vector
	// Allocated is the sum of the scheduler's allocations on the node.
	Allocated resource.Vector
	// Occupied is what foreign allocations (other schedulers) use.
	Occupied   resource.Vector
	Attributes map[string]string
	// Foreign maps foreign allocation keys to the allocations.
	Foreign map[string]Foreign
	// reservedApp is at the end, with what a decision seldom reads: it is
	// compared only when ReservedFor equals an ask's key.
	reservedApp string
}

// Reserve records that the node is held for ask key of application
// appID; Reserve("", "") ends the hold. The owner calls Index.Update.
func (n *Node) Reserve(appID, key string) {
	n.ReservedFor, n.reservedApp = key, appID
}

// HeldFor reports whether the node is reserved for ask key of
// application appID.
func (n *Node) HeldFor(appID, key string) bool {
	return n.ReservedFor != "" && n.ReservedFor == key && n.reservedApp == appID
}

// Foreign is an allocation of another scheduler on a node (reference
// §2.17): it occupies its resources there and takes part in nothing else.
type Foreign struct {
	Res resource.Vector
	// Tags are the RM's allocation tags (shared, never mutated): a
	// Kubernetes shim sends the pod's namespace and name, which the web UI
	// shows.
	Tags     map[string]string
	Priority int32
	// Created is the allocation's creation time (its creationTime tag,
	// else when it was first reported).
	Created time.Time
	// Preemptable is false for the foreign type static (static pods, which
	// cannot be moved) and true otherwise, as the reference sets it.
	Preemptable bool
}

// New returns a schedulable node with the given capacity.
func New(id string, capacity resource.Vector, attrs map[string]string) *Node {
	return &Node{
		ID:           id,
		Attributes:   attrs,
		InstanceType: instanceType(attrs),
		Capacity:     capacity,
		Schedulable:  true,
		Foreign:      map[string]Foreign{},
	}
}

func instanceType(attrs map[string]string) string {
	for _, k := range []string{InstanceTypeAttribute, InstanceTypeLabel} {
		if t := attrs[k]; t != "" {
			return t
		}
	}
	return app.UnknownInstanceType
}

// Available is what the scheduler may still place on the node.
func (n *Node) Available() resource.Vector {
	return n.Capacity.Sub(n.Allocated).Sub(n.Occupied)
}

// Used is everything occupying the node: allocations plus foreign use.
func (n *Node) Used() resource.Vector {
	return n.Allocated.Add(n.Occupied)
}

// Eligible reports whether the node may take a normal allocation: it is
// schedulable and holds no reservation.
func (n *Node) Eligible() bool {
	return n.Schedulable && n.ReservedFor == ""
}

// firstAllocs is the room a node's allocation list starts with.
const firstAllocs = 16

// AddAlloc records allocation x on the node and adds its resources.
func (n *Node) AddAlloc(x *app.Allocation) { n.AddAllocOn(x, x.Res.Support()) }

// AddAllocOn is AddAlloc for an allocation whose resources' support the
// caller has: m, which must be x.Res.Support().
func (n *Node) AddAllocOn(x *app.Allocation, m resource.Mask) {
	x.NodeSlot = int32(len(n.allocs)) // a node never holds 2^31 allocations
	x.InstanceType = n.InstanceType
	if n.allocs == nil {
		// a node that takes one allocation usually takes several: skip
		// the smallest growth steps
		n.allocs = make([]*app.Allocation, 0, firstAllocs)
	}
	n.allocs = append(n.allocs, x)
	n.Allocated.IncOn(&x.Res, m)
	if b := n.bounds; b != nil {
		b.widen(x, m)
		b.live++
	}
}

// RemoveAlloc forgets allocation x and frees its resources. It reports
// whether x was on the node.
func (n *Node) RemoveAlloc(x *app.Allocation) bool {
	i := int(x.NodeSlot)
	if i < 0 || i >= len(n.allocs) || n.allocs[i] != x {
		return false
	}
	last := len(n.allocs) - 1
	n.allocs[i] = n.allocs[last]
	n.allocs[i].NodeSlot = int32(i)
	n.allocs[last] = nil
	n.allocs = n.allocs[:last]
	x.NodeSlot = -1
	n.Allocated.DecOn(&x.Res, x.Res.Support())
	if b := n.bounds; b != nil {
		b.live--
		b.left++
	}
	return true
}

// Resize changes the recorded resources of allocation x on the node from
// its current value by delta.
func (n *Node) Resize(delta resource.Vector) { n.Allocated.Inc(delta) }

// Holds reports whether allocation x is on the node.
func (n *Node) Holds(x *app.Allocation) bool {
	i := int(x.NodeSlot)
	return i >= 0 && i < len(n.allocs) && n.allocs[i] == x
}

// Forced reports whether any allocation on the node was placed or resized
// by the RM at any cost (so the node may legitimately be over capacity).
func (n *Node) Forced() bool {
	for _, x := range n.allocs {
		if x.Forced {
			return true
		}
	}
	return false
}

// Each calls fn for the node's allocations, in no particular (but
// deterministic) order, until fn returns false.
func (n *Node) Each(fn func(*app.Allocation) bool) {
	for _, x := range n.allocs {
		if !fn(x) {
			return
		}
	}
}

// AllocCount returns the number of allocations on the node.
func (n *Node) AllocCount() int { return len(n.allocs) }

// Allocations returns the node's allocations sorted by key.
func (n *Node) Allocations() []*app.Allocation {
	out := slices.Clone(n.allocs)
	slices.SortFunc(out, func(a, b *app.Allocation) int {
		if c := strings.Compare(a.AppID, b.AppID); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}
