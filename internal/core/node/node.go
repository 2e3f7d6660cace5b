// Package node owns the scheduler's view of a node: its capacity, what is
// allocated and occupied on it, whether it takes new work, and the ordered
// index that finds the best node for an ask in logarithmic time.
package node

import (
	"github.com/paddock-sched/paddock/internal/resource"
)

// Node is one schedulable host of a partition. The partition mutates it;
// after any change to Capacity, Allocated, Occupied, Schedulable or the
// reservation, the owner calls Index.Update so the ordering stays right.
type Node struct {
	ID         string
	Attributes map[string]string
	// Capacity is the schedulable resource reported by the RM.
	Capacity resource.Vector
	// Allocated is the sum of the scheduler's allocations on the node.
	Allocated resource.Vector
	// Occupied is what foreign allocations (other schedulers) use.
	Occupied resource.Vector
	// Schedulable is false while the node drains.
	Schedulable bool
	// ReservedFor is the key of the ask holding a reservation on this node,
	// or "" when the node is not reserved.
	ReservedFor string
	// Allocs maps the keys of the scheduler's allocations on this node to
	// their application IDs.
	Allocs map[string]string
	// Foreign maps foreign allocation keys to what they occupy.
	Foreign map[string]resource.Vector

	t *tnode // the node's entry in its Index, nil when not indexed
}

// New returns a schedulable node with the given capacity.
func New(id string, capacity resource.Vector, attrs map[string]string) *Node {
	return &Node{
		ID:          id,
		Attributes:  attrs,
		Capacity:    capacity,
		Schedulable: true,
		Allocs:      map[string]string{},
		Foreign:     map[string]resource.Vector{},
	}
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
