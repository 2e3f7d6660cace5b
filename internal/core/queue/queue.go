// Package queue owns a partition's hierarchical queue tree: configuration
// applied to live queues, the allocated and pending roll-ups along every
// path, headroom, queue priorities, and the orderings the scheduling pass
// walks (child queues by fair share and priority, applications by the leaf's
// sort policy).
package queue

import (
	"math"
	"slices"
	"strings"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/prio"
	"github.com/paddock-sched/paddock/internal/resource"
)

// State is a queue's lifecycle state (reference §3.3).
type State uint8

// Queue states.
const (
	Active State = iota
	Draining
)

func (s State) String() string {
	if s == Draining {
		return "Draining"
	}
	return "Active"
}

// Queue is one queue of the tree.
type Queue struct {
	Name   string
	Path   string
	Parent *Queue
	Leaf   bool
	// Managed queues come from the configuration; others were created
	// dynamically by placement.
	Managed bool
	State   State

	Guaranteed resource.Quota
	Max        resource.Quota
	MaxApps    uint64
	Props      config.Properties
	Submit     config.ACL
	Admin      config.ACL
	// Template applies to dynamic leaf queues created below this queue.
	Template *config.ChildTemplate
	// Raw configured values, kept for REST.
	Config *config.QueueConfig

	Allocated resource.Vector
	Pending   resource.Vector
	// Preempting is what preemption victims here and below still hold
	// until the RM releases them (REST preemptingResource). The partition
	// maintains it.
	Preempting resource.Vector
	// MaxHeld is, type by type, at least the most any one allocation here
	// and below holds (held.go).
	MaxHeld resource.Vector
	// QuotaPreemption is the pending quota-change preemption of a managed
	// queue whose usage exceeds its max (reference §2.15).
	QuotaPreemption QuotaTrigger
	// RunningApps counts the applications that hold resources or are
	// allowed to start (reference §2.6), here and below.
	RunningApps uint64

	children map[string]*Queue
	names    []string // sorted child names
	apps     map[string]*app.App
	// gone is set once the queue is removed from its tree (Tree.Leaf)
	gone bool

	// ordering state
	index int // position in the parent's child heap, -1 when not in it
	// rank is the queue's position among its siblings by name, the child
	// ordering's last tie-break (an integer compare, not a string's).
	rank     int32
	deferred bool
	share    float64
	// pendW is pendingWeight of Pending as of the last refresh: the
	// child heap's tie-breaker, summed once per change, not per comparison
	pendW       int64
	prio        int32
	prios       prio.Counts // leaf: pending asks per priority; parent: children per priority
	pendingAsks int
	kids        queueHeap
	runnable    appHeap
	skipped     []*Queue
	skippedA    []*app.App
	fairMax     resource.Vector
}

func newQueue(name string, parent *Queue, leaf bool) *Queue {
	q := &Queue{
		Name:     name,
		Parent:   parent,
		Leaf:     leaf,
		Props:    config.DefaultProperties(),
		children: map[string]*Queue{},
		apps:     map[string]*app.App{},
		index:    -1,
		prio:     math.MinInt32,
	}
	if parent == nil {
		q.Path = name
	} else {
		q.Path = parent.Path + "." + name
		parent.children[name] = q
		i, _ := slices.BinarySearch(parent.names, name)
		parent.names = slices.Insert(parent.names, i, name)
		parent.rankChildren()
	}
	return q
}

// rankChildren numbers q's children in name order (rank). The relative
// order of the others does not change when a child comes or goes, so the
// child ordering stays a heap.
func (q *Queue) rankChildren() {
	for i, n := range q.names {
		q.children[n].rank = int32(i)
	}
}

// Child returns the named child.
func (q *Queue) Child(name string) (*Queue, bool) {
	c, ok := q.children[strings.ToLower(name)]
	return c, ok
}

// Children returns the children in name order.
func (q *Queue) Children() []*Queue {
	out := make([]*Queue, len(q.names))
	for i, n := range q.names {
		out[i] = q.children[n]
	}
	return out
}

// Apps returns the leaf's applications sorted by ID.
func (q *Queue) Apps() []*app.App {
	out := make([]*app.App, 0, len(q.apps))
	for _, a := range q.apps {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b *app.App) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// EachApp calls f for each application of the leaf, in no set order.
func (q *Queue) EachApp(f func(*app.App)) {
	for _, a := range q.apps {
		f(a)
	}
}

// EachChild calls f for each child, in no set order.
func (q *Queue) EachChild(f func(*Queue)) {
	for _, c := range q.children {
		f(c)
	}
}

// AppCount returns the number of applications in the leaf.
func (q *Queue) AppCount() int { return len(q.apps) }

// Empty reports whether the queue has no applications and no children.
func (q *Queue) Empty() bool { return len(q.apps) == 0 && len(q.children) == 0 }

// Priority is the queue's current priority after offset and fence
// (reference §2.3): MinInt32 when nothing is pending.
func (q *Queue) Priority() int32 { return q.prio }

// Headroom is what may still be allocated in q: the minimum over the path
// to the root of max minus allocated, unset types unlimited.
func (q *Queue) Headroom() resource.Quota { return q.headroomBelow(nil) }

// ConfiguredHeadroom is Headroom without the root, whose max is the
// cluster's size: what the configured maxima leave q, however many nodes
// there are (what an autoscaler may add nodes for).
func (q *Queue) ConfiguredHeadroom() resource.Quota {
	root := q
	for root.Parent != nil {
		root = root.Parent
	}
	return q.headroomBelow(root)
}

// headroomBelow is Headroom over the path from q up to, not including,
// top (nil: the whole path).
func (q *Queue) headroomBelow(top *Queue) resource.Quota {
	var h resource.Quota
	for x := q; x != top; x = x.Parent {
		if !x.Max.IsUnlimited() {
			h = h.Min(x.Max.Headroom(x.Allocated))
		}
	}
	return h
}

// FitsMax reports whether adding res to every queue on the path keeps each
// within its max.
func (q *Queue) FitsMax(res resource.Vector) bool {
	for x := q; x != nil; x = x.Parent {
		if !x.Max.AllowsAdd(x.Allocated, res) {
			return false
		}
	}
	return true
}

// CanSubmit reports whether the user may submit to q: the submit or admin
// ACL of q or any ancestor allows it (reference §1.7). The recovery queue
// denies everyone.
func (q *Queue) CanSubmit(user string, groups []string) bool {
	if q.Name == config.RecoveryQueue {
		return false
	}
	for x := q; x != nil; x = x.Parent {
		if x.Submit.Allows(user, groups) || x.Admin.Allows(user, groups) {
			return true
		}
	}
	return false
}

// AdjustPriority is the priority a request of priority p in this queue has
// as seen from the queue's parent: priority.offset added, or the offset
// alone below a priority.policy=fence queue.
func (q *Queue) AdjustPriority(p int32) int32 { return q.priorityAfterPolicy(p) }

// priorityAfterPolicy applies priority.offset and priority.policy.
func (q *Queue) priorityAfterPolicy(p int32) int32 {
	if p == math.MinInt32 {
		return p
	}
	if q.Props.PriorityPolicy == config.PolicyFence {
		return q.Props.PriorityOffset
	}
	s := int64(p) + int64(q.Props.PriorityOffset)
	return int32(max(math.MinInt32, min(math.MaxInt32, s)))
}
