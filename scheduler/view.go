package scheduler

import (
	"context"
	"strings"
	"time"
)

// Resource is a quantity per resource type, in the SI's units ("vcore" in
// millicores, "memory" in bytes); types at zero are left out.
type Resource map[string]int64

// View is a read-only copy of the scheduler's state at one moment. It
// shares nothing with the scheduler: holding or changing it changes
// nothing there.
type View struct {
	// Generation counts the scheduler's state changes; a larger one is a
	// later state.
	Generation uint64
	// Partitions, the default partition first, then by name and RM.
	Partitions []*Partition
}

// Partition is one RM's partition.
type Partition struct {
	// Name is the partition's own name ("default"); RMID the RM it belongs
	// to. Inside YuniKorn the pair is written "[RMID]Name".
	Name, RMID string
	Capacity   Resource
	// Queues lists every queue, parents before their children.
	Queues []*Queue
	// Apps are the partition's live applications, by ID; Completed,
	// Failed, Rejected and Expired ones are in Terminated until they
	// expire.
	Apps, Terminated []*App
	// Nodes, by ID.
	Nodes []*Node
}

// Queue is a queue of a partition.
type Queue struct {
	// Path is the full dotted name ("root.a.b").
	Path               string
	Leaf               bool
	State              string
	Max                Resource // only the limited types
	Guaranteed         Resource
	Allocated, Pending Resource
	// Apps are the IDs of the queue's applications.
	Apps []string
}

// App is an application.
type App struct {
	ID, Queue, User string
	Groups          []string
	// State is the reference's state name: New, Accepted, Running,
	// Completing, Completed, Failing, Failed, Rejected, Resuming, Expired.
	State       string
	Submitted   time.Time
	Allocated   Resource
	Pending     Resource
	Tags        map[string]string
	Asks        []*Ask
	Allocations []*Allocation
}

// Ask is a pending allocation request.
type Ask struct {
	Key, AppID   string
	Resource     Resource
	Priority     int32
	Placeholder  bool
	TaskGroup    string
	RequiredNode string
	Tags         map[string]string
}

// Allocation is an allocation on a node: the scheduler's own, or a
// foreign one (another scheduler's, AppID empty).
type Allocation struct {
	Key, AppID, NodeID string
	Resource           Resource
	Priority           int32
	Placeholder        bool
	TaskGroup          string
	Foreign            bool
	Tags               map[string]string
}

// Node is a node of a partition.
type Node struct {
	ID                                       string
	Attributes                               map[string]string
	Schedulable                              bool
	Capacity, Allocated, Occupied, Available Resource
	// Allocations are the scheduler's allocations on the node; Foreign
	// the other schedulers' (they make up Occupied).
	Allocations, Foreign []*Allocation
}

// View returns the scheduler's current state: every update the scheduler
// had applied when View was called is in it. After Shutdown it returns the
// last state published.
func (s *Scheduler) View(ctx context.Context) (*View, error) {
	snap, err := s.srv.Service().CurrentSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	return fromSnapshot(snap), nil
}

// Partition finds a partition by name, as "name" (the first RM's, in the
// order of Partitions) or as YuniKorn's "[rmID]name".
func (v *View) Partition(name string) *Partition {
	rm := ""
	if strings.HasPrefix(name, "[") {
		if i := strings.IndexByte(name, ']'); i > 0 {
			rm, name = name[1:i], name[i+1:]
		}
	}
	for _, p := range v.Partitions {
		if strings.EqualFold(p.Name, name) && (rm == "" || p.RMID == rm) {
			return p
		}
	}
	return nil
}

// App finds a live or terminated application by ID.
func (p *Partition) App(id string) *App {
	for _, list := range [][]*App{p.Apps, p.Terminated} {
		for _, a := range list {
			if a.ID == id {
				return a
			}
		}
	}
	return nil
}

// Node finds a node by ID.
func (p *Partition) Node(id string) *Node {
	for _, n := range p.Nodes {
		if n.ID == id {
			return n
		}
	}
	return nil
}

// Queue finds a queue by its full path (case-insensitive).
func (p *Partition) Queue(path string) *Queue {
	for _, q := range p.Queues {
		if strings.EqualFold(q.Path, path) {
			return q
		}
	}
	return nil
}
