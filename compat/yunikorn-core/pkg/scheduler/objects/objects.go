// Package objects has the reference core's application, node and
// allocation objects as read-only copies of Paddock's state, taken when
// they are looked up (pkg/scheduler's ClusterContext and PartitionContext).
package objects

import (
	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"

	"github.com/paddock-sched/paddock/scheduler"

	"github.com/apache/yunikorn-core/pkg/common/resources"
)

// Application is an application as it was when looked up.
type Application struct {
	ApplicationID string
	Partition     string
	queuePath     string
	user          string
	state         string
	allocations   []*Allocation
	asks          []*Allocation
}

// NewApplication copies a Paddock application.
func NewApplication(a *scheduler.App, partition string) *Application {
	out := &Application{ApplicationID: a.ID, Partition: partition, queuePath: a.Queue, user: a.User, state: a.State}
	for _, x := range a.Allocations {
		out.allocations = append(out.allocations, NewAllocation(x))
	}
	for _, k := range a.Asks {
		out.asks = append(out.asks, &Allocation{
			key: k.Key, appID: k.AppID, resource: resources.NewResourceFromMap(k.Resource),
			priority: k.Priority, placeholder: k.Placeholder, taskGroup: k.TaskGroup,
		})
	}
	return out
}

// CurrentState is the reference's state name ("New", "Accepted",
// "Running", "Completing", "Completed", "Failing", "Failed", "Rejected",
// "Resuming", "Expired").
func (a *Application) CurrentState() string { return a.state }

// GetAllAllocations are the application's allocations.
func (a *Application) GetAllAllocations() []*Allocation { return a.allocations }

// GetAllRequests are its pending asks.
func (a *Application) GetAllRequests() []*Allocation { return a.asks }

// GetQueuePath is the full name of its queue.
func (a *Application) GetQueuePath() string { return a.queuePath }

// GetUser is the submitting user's name.
func (a *Application) GetUser() string { return a.user }

// Allocation is an allocation or a pending ask (no node).
type Allocation struct {
	key, appID, nodeID string
	resource           *resources.Resource
	priority           int32
	placeholder        bool
	taskGroup          string
	foreign            bool
}

// NewAllocation copies a Paddock allocation.
func NewAllocation(x *scheduler.Allocation) *Allocation {
	return &Allocation{
		key: x.Key, appID: x.AppID, nodeID: x.NodeID, resource: resources.NewResourceFromMap(x.Resource),
		priority: x.Priority, placeholder: x.Placeholder, taskGroup: x.TaskGroup, foreign: x.Foreign,
	}
}

// GetAllocationKey is the RM's key of the allocation.
func (a *Allocation) GetAllocationKey() string { return a.key }

// GetApplicationID is its application ("" for a foreign allocation).
func (a *Allocation) GetApplicationID() string { return a.appID }

// GetNodeID is the node it is on ("" for an ask).
func (a *Allocation) GetNodeID() string { return a.nodeID }

// GetAllocatedResource is what it holds or asks for.
func (a *Allocation) GetAllocatedResource() *resources.Resource { return a.resource.Clone() }

// GetPriority is its priority.
func (a *Allocation) GetPriority() int32 { return a.priority }

// IsPlaceholder says whether it is a gang placeholder.
func (a *Allocation) IsPlaceholder() bool { return a.placeholder }

// GetTaskGroup is its gang task group.
func (a *Allocation) GetTaskGroup() string { return a.taskGroup }

// IsForeign says whether another scheduler placed it.
func (a *Allocation) IsForeign() bool { return a.foreign }

// Node is a node as it was when looked up.
type Node struct {
	NodeID      string
	Hostname    string
	schedulable bool
	capacity    *resources.Resource
	allocated   *resources.Resource
	occupied    *resources.Resource
	available   *resources.Resource
	allocations []*Allocation
	foreign     []*Allocation
}

// NewNode copies a Paddock node.
func NewNode(n *scheduler.Node) *Node {
	out := &Node{
		NodeID: n.ID, Hostname: n.Attributes[common.HostName], schedulable: n.Schedulable,
		capacity: resources.NewResourceFromMap(n.Capacity), allocated: resources.NewResourceFromMap(n.Allocated),
		occupied: resources.NewResourceFromMap(n.Occupied), available: resources.NewResourceFromMap(n.Available),
	}
	for _, x := range n.Allocations {
		out.allocations = append(out.allocations, NewAllocation(x))
	}
	for _, x := range n.Foreign {
		out.foreign = append(out.foreign, NewAllocation(x))
	}
	return out
}

// GetAllAllocations are the scheduler's allocations on the node.
func (n *Node) GetAllAllocations() []*Allocation { return n.allocations }

// GetForeignAllocations are the other schedulers' allocations on it.
func (n *Node) GetForeignAllocations() []*Allocation { return n.foreign }

// IsSchedulable says whether it takes new allocations.
func (n *Node) IsSchedulable() bool { return n.schedulable }

// GetCapacity, GetAllocatedResource, GetOccupiedResource and
// GetAvailableResource are its totals.
func (n *Node) GetCapacity() *resources.Resource          { return n.capacity.Clone() }
func (n *Node) GetAllocatedResource() *resources.Resource { return n.allocated.Clone() }
func (n *Node) GetOccupiedResource() *resources.Resource  { return n.occupied.Clone() }
func (n *Node) GetAvailableResource() *resources.Resource { return n.available.Clone() }
