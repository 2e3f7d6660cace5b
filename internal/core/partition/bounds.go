package partition

import (
	"fmt"
	"math/bits"

	"github.com/paddock-sched/paddock/internal/resource"
)

// The partition keeps three totals at or below resource.MaxQuantity in
// every type, checked before input is accepted: its capacity (the sum of
// node capacities), its demand (the sum of every ask and allocation, pending
// or placed) and its foreign occupation (the sum of foreign allocations).
// Every other total (a node's, queue's, application's, user's) is part of
// one of them, so no accepted input can make a total wrap; input that would
// is rejected with a reason and changes nothing.

// demand is the sum of every ask and allocation in the partition.
func (p *Partition) demand() resource.Vector {
	r := p.tree.Root
	return r.Allocated.Add(r.Pending)
}

// bound rejects input that would take a partition total above
// resource.MaxQuantity: total grows by add while old leaves it.
func (p *Partition) bound(what, total string, sum, old, add resource.Vector) error {
	i, over := sum.Above(old, add)
	if !over {
		return nil
	}
	name := p.reg.Name(i)
	if name == "" {
		name = fmt.Sprintf("#%d", i)
	}
	return fmt.Errorf("%s: %s of resource %q in partition %s would exceed the maximum %d",
		what, total, name, p.Name, resource.MaxQuantity)
}

func (p *Partition) boundCapacity(what string, old, add resource.Vector) error {
	return p.bound(what, "the total capacity", p.cluster, old, add)
}

// boundDemand is bound for the demand of allocation key; the message is
// only built when the bound is crossed (every ask passes here).
func (p *Partition) boundDemand(key string, old, add *resource.Vector) error {
	return p.boundDemandOn(key, old, add, add.Support())
}

// boundDemandOn is boundDemand for an add whose support is m.
func (p *Partition) boundDemandOn(key string, old, add *resource.Vector, m resource.Mask) error {
	// Above(demand, old, add) in place: every ask passes here, and
	// building the demand and copying three vectors cost more than the
	// test. Only add's types can cross: elsewhere add is 0, the demand is
	// at most MaxQuantity (this bound keeps it there) and old, a counted
	// ask or allocation, is not negative.
	r := p.tree.Root
	over := false
	for ; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(uint32(m))
		if add[i] > resource.MaxQuantity || r.Allocated[i]+r.Pending[i]-old[i]+add[i] > resource.MaxQuantity {
			over = true
			break
		}
	}
	if !over {
		return nil
	}
	return p.bound("allocation "+key, "the total of asks and allocations", p.demand(), *old, *add)
}

func (p *Partition) boundForeign(what string, old, add resource.Vector) error {
	return p.bound(what, "the total of foreign allocations", p.occupied, old, add)
}
