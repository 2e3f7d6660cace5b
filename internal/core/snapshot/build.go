package snapshot

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/core/partition"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/core/usage"
)

// Inputs is what the engine's owner knows that the engine does not.
type Inputs struct {
	Generation uint64
	Now        time.Time
	// RMs holds registration details per RM ID.
	RMs map[string]RMInfo
	// Rejected holds rejected applications per RM ID (records made with
	// Rejected; they are shared, not copied).
	Rejected map[string][]*App
	Counters Counters
}

// RMInfo is what an RM said when it registered.
type RMInfo struct {
	Registered time.Time
	BuildInfo  map[string]string
}

// Builder builds snapshots of one engine and keeps what it can reuse
// between builds (rendered configurations). Use it on the engine's
// goroutine only.
type Builder struct {
	yaml map[*config.SchedulerConfig][]byte
}

// Build copies the engine's state into a new snapshot.
func (b *Builder) Build(e *engine.Engine, in Inputs) *Snapshot {
	s := &Snapshot{
		Generation: in.Generation,
		Built:      in.Now,
		Counters:   in.Counters,
	}
	yaml := map[*config.SchedulerConfig][]byte{}
	for _, id := range e.RMs() {
		rm, _ := e.RM(id)
		info := in.RMs[id]
		r := &RM{
			ID: id, PolicyGroup: rm.PolicyGroup, Order: rm.Order, Registered: info.Registered,
			BuildInfo: cloneMap(info.BuildInfo), Extra: cloneMap(rm.Extra),
			Config: rm.Config, Checksum: rm.Config.Checksum,
		}
		if y, ok := b.yaml[rm.Config]; ok {
			r.ConfigYAML = y
		} else if y, err := rm.Config.YAML(); err == nil {
			r.ConfigYAML = y
		}
		yaml[rm.Config] = r.ConfigYAML
		s.RMs = append(s.RMs, r)
		names := rm.Registry().Names()
		for _, p := range rm.Partitions() {
			bp := buildPartition(p, info.Registered, in.Rejected[id])
			bp.Names, bp.order = names, rm.Order
			s.Partitions = append(s.Partitions, bp)
		}
	}
	b.yaml = yaml // forget configurations no longer active
	slices.SortFunc(s.RMs, func(a, b *RM) int { return cmp.Compare(a.Order, b.Order) })
	sortPartitions(s.Partitions)
	return s
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func buildPartition(p *partition.Partition, created time.Time, rejected []*App) *Partition {
	out := &Partition{
		Name: p.Name, RMID: p.RMID, Created: created, Config: p.Config(),
		Capacity: p.Cluster(), Rules: p.PlacementRules(),
		Users: p.Users().Users(), Groups: p.Users().Groups(),
		Decisions: p.Stats.Allocations, Passes: p.Stats.Passes, Preemptions: p.PreemptDecisions(),
		queues: map[string]*Queue{}, nodes: make(map[string]*Node, p.NodeCount()),
		apps: make(map[string]*App, p.AppCount()+p.DoneCount()+len(rejected)),
	}
	if out.Users == nil {
		out.Users = []usage.UserDAO{}
	}
	if out.Groups == nil {
		out.Groups = []usage.GroupDAO{}
	}
	p.EachReservation(func(appID, key, nodeID string) bool {
		out.Reservations = append(out.Reservations, Reservation{AppID: appID, AskKey: key, NodeID: nodeID})
		return true
	})
	p.EachApp(func(a *app.App) bool {
		out.Apps = append(out.Apps, buildApp(a, p.Name))
		return true
	})
	p.EachDoneApp(func(a *app.App) bool {
		out.Done = append(out.Done, buildApp(a, p.Name))
		return true
	})
	for _, a := range out.Apps {
		out.apps[a.ID] = a
		out.Allocations += len(a.Allocations)
	}
	for _, a := range out.Done {
		out.apps[a.ID] = a
	}
	for _, a := range rejected {
		if a.Partition == p.Name {
			if _, known := out.apps[a.ID]; !known {
				out.apps[a.ID] = a
				out.Done = append(out.Done, a)
			}
		}
	}
	byID := func(a, b *App) int { return strings.Compare(a.ID, b.ID) }
	slices.SortFunc(out.Apps, byID)
	slices.SortFunc(out.Done, byID)
	for i := range out.Reservations {
		r := &out.Reservations[i]
		if a, ok := out.apps[r.AppID]; ok {
			a.Reserved = append(a.Reserved, *r)
		}
	}

	p.EachNode(func(n *node.Node) bool {
		out.Nodes = append(out.Nodes, buildNode(n, out.apps))
		return true
	})
	slices.SortFunc(out.Nodes, func(a, b *Node) int { return strings.Compare(a.ID, b.ID) })
	for _, n := range out.Nodes {
		out.nodes[n.ID] = n
	}
	for i := range out.Reservations {
		r := &out.Reservations[i]
		if n, ok := out.nodes[r.NodeID]; ok {
			n.ReservedFor = r
		}
	}
	out.Root = buildQueue(p.Tree().Root, "", out.queues)
	return out
}

func buildApp(a *app.App, part string) *App {
	out := &App{
		ID: a.ID, Partition: part, Queue: a.QueuePath, User: a.User, Groups: a.Groups, Tags: a.Tags,
		State: a.State, StateLog: slices.Clone(a.StateLog),
		Submitted: a.SubmitTime, Started: a.StartTime, Finished: a.FinishTime,
		Message: a.Message, BackoffUntil: a.BackoffUntil,
		Allocated: a.Allocated, Pending: a.Pending, Placeholder: a.PlaceholderAllocated, MaxAllocated: a.MaxAllocated,
		History:     a.History.Clone(),
		MaxPriority: a.Priority(), HasPending: a.PendingCount() > 0,
		Asks:        make([]*Ask, 0, a.PendingCount()),
		Allocations: make([]*Allocation, 0, a.AllocatedCount()),
	}
	asks := make([]Ask, 0, a.PendingCount())
	allocs := make([]Allocation, 0, a.AllocatedCount())
	// the asks' logs share blocks; usually one entry each
	logs := make([]app.LogEntry, 0, a.PendingCount())
	a.Each(func(x *app.Allocation) bool {
		switch {
		case x.Pending():
			n := len(logs)
			logs = a.AppendLog(logs, x)
			asks = append(asks, Ask{
				Key: x.Key, AppID: a.ID, Tags: x.Tags, Created: x.Created, Res: x.Res, Priority: x.Priority,
				RequiredNode: x.RequiredNode, Placeholder: x.Placeholder, TaskGroup: x.TaskGroup,
				Originator: x.Originator, ScaleUp: x.ScaleUp, TriggeredPreemption: x.TriggeredPreemption, Why: a.Why(x), Log: logs[n:len(logs):len(logs)],
			})
		case x.NodeID != "":
			var s *Allocation
			if len(allocs) < cap(allocs) {
				// one block for the application's allocations; never
				// grown, so the pointers into it stay valid
				allocs = append(allocs, allocationOf(x))
				s = &allocs[len(allocs)-1]
			} else {
				c := allocationOf(x)
				s = &c
			}
			out.Allocations = append(out.Allocations, s)
		}
		return true
	})
	for i := range asks {
		out.Asks = append(out.Asks, &asks[i])
	}
	slices.SortFunc(out.Asks, func(a, b *Ask) int { return strings.Compare(a.Key, b.Key) })
	slices.SortFunc(out.Allocations, func(a, b *Allocation) int { return strings.Compare(a.Key, b.Key) })
	for name, tg := range a.TaskGroups {
		out.TaskGroups = append(out.TaskGroups, TaskGroup{
			Name: name, Count: tg.Count, Replaced: tg.Replaced, TimedOut: tg.TimedOut, MinResource: tg.MinResource,
		})
	}
	slices.SortFunc(out.TaskGroups, func(a, b TaskGroup) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func allocationOf(x *app.Allocation) Allocation {
	out := Allocation{
		Key: x.Key, AppID: x.AppID, NodeID: x.NodeID, Tags: x.Tags, Created: x.Created, Allocated: x.Allocated,
		Res: x.Res, Priority: x.Priority, Placeholder: x.Placeholder, TaskGroup: x.TaskGroup,
		Originator: x.Originator, Forced: x.Forced, PreemptSelf: x.PreemptSelf, Preempted: x.Preempted,
		PlaceholderUsed: x.PlaceholderUsed,
	}
	if x.Replacing() != nil {
		out.Replacing = x.Replacing().Key
	}
	return out
}

func buildNode(n *node.Node, apps map[string]*App) *Node {
	out := &Node{
		ID: n.ID, Attributes: n.Attributes, Capacity: n.Capacity, Allocated: n.Allocated,
		Occupied: n.Occupied, Available: n.Available(), Schedulable: n.Schedulable,
	}
	live := n.Allocations()
	out.Allocations = make([]*Allocation, 0, len(live))
	for _, x := range live {
		s, ok := findAllocation(apps[x.AppID], x.Key)
		if !ok || s.NodeID != n.ID {
			// the node holds an allocation its application does not list:
			// keep it so health checks can report the orphan
			a := allocationOf(x)
			s = &a
		}
		out.Allocations = append(out.Allocations, s)
	}
	if len(n.Foreign) > 0 {
		out.Foreign = make([]Foreign, 0, len(n.Foreign))
		for k, v := range n.Foreign {
			out.Foreign = append(out.Foreign, Foreign{Key: k, Res: v.Res, Tags: v.Tags, Priority: v.Priority, Created: v.Created, Preemptable: v.Preemptable})
		}
		slices.SortFunc(out.Foreign, func(a, b Foreign) int { return cmp.Compare(a.Key, b.Key) })
	}
	return out
}

func buildQueue(q *queue.Queue, parent string, index map[string]*Queue) *Queue {
	out := &Queue{
		Name: q.Name, Path: q.Path, Parent: parent, Leaf: q.Leaf, Managed: q.Managed, State: q.State.String(),
		Guaranteed: q.Guaranteed, Max: q.Max, Headroom: q.Headroom(),
		Allocated: q.Allocated, Preempting: q.Preempting, Pending: q.Pending, MaxApps: q.MaxApps, RunningApps: q.RunningApps,
		Props: q.Props, Template: q.Template, Priority: q.Priority(), QuotaPreemptionAt: q.QuotaPreemption.At,
	}
	switch {
	case q.Config != nil:
		out.Properties = q.Config.Inherited
	case q.Leaf && q.Template != nil:
		out.Properties = q.Template.Properties
	}
	if q.Leaf {
		apps := q.Apps()
		out.Apps = make([]string, len(apps))
		for i, a := range apps {
			out.Apps[i] = a.ID
		}
	}
	index[strings.ToLower(q.Path)] = out
	for _, c := range q.Children() {
		out.Children = append(out.Children, buildQueue(c, q.Path, index))
	}
	return out
}

// Rejected makes the record of an application the scheduler rejected, for
// the engine's owner to keep and pass in Inputs.
func Rejected(id, part, queuePath, user string, groups []string, tags map[string]string, reason string, now time.Time) *App {
	return &App{
		ID: id, Partition: part, Queue: queuePath, User: user, Groups: groups, Tags: tags,
		State: app.Rejected, Message: reason, Submitted: now, Finished: now,
		StateLog:    []app.StateChange{{Time: now, State: app.Rejected}},
		Asks:        []*Ask{},
		Allocations: []*Allocation{},
	}
}

// findAllocation finds an application's allocation by key.
func findAllocation(a *App, key string) (*Allocation, bool) {
	if a == nil {
		return nil, false
	}
	i, ok := slices.BinarySearchFunc(a.Allocations, key, func(s *Allocation, k string) int { return strings.Compare(s.Key, k) })
	if !ok {
		return nil, false
	}
	return a.Allocations[i], true
}
