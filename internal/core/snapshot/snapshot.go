// Package snapshot owns the immutable, generation-stamped copy of the
// scheduler state that every reader outside the engine goroutine uses: the
// REST API, health checks, history sampling and state dumps. A Snapshot is
// built on the engine's goroutine (Build) and then published; once built,
// nothing in it changes and nothing in it points at a live object, so any
// number of goroutines may read it without locks.
//
// It lives under internal/core because building it is the one place besides
// the engine that reads live core objects (partitions, queues, applications,
// nodes, trackers), and it must run on the engine goroutine. It imports no
// REST, SI or gRPC package: it keeps resources as vectors with the name
// table of the moment, and leaves JSON shapes to its readers.
//
// Some values are shared with the engine instead of copied, because the
// engine never mutates them once received: tag and attribute maps of
// allocations, applications and nodes, group lists, parsed configurations
// (*config.SchedulerConfig, *config.ChildTemplate) and placement rules.
package snapshot

import (
	"cmp"
	"github.com/paddock-sched/paddock/internal/core/partition"
	"slices"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/usage"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Snapshot is the whole scheduler state at one generation.
type Snapshot struct {
	// Generation is the state generation the snapshot was built from;
	// snapshots with equal generations hold equal state.
	Generation uint64
	// Built is the scheduler clock's time at the build.
	Built time.Time
	// RMs are the registered resource managers, in the order they first
	// registered.
	RMs []*RM
	// Partitions of all RMs, "default" first, then by name, then in the
	// order their RMs first registered.
	Partitions []*Partition
	// Counters are the service's cumulative error counters.
	Counters Counters
}

// Counters are running totals kept by the service that owns the engine.
type Counters struct {
	// RejectedAllocations counts asks and allocations the scheduler could
	// not accept from an RM; RejectedNodes counts rejected node requests.
	RejectedAllocations, RejectedNodes uint64
}

// RM is one registered resource manager.
type RM struct {
	ID, PolicyGroup string
	// Order is the rank of the RM's first registration (1 for the first).
	Order      uint64
	Registered time.Time
	// BuildInfo is the RM's build information from its registration.
	BuildInfo map[string]string
	// Extra is the extra configuration map the RM sent.
	Extra map[string]string
	// Config is the active parsed configuration (shared, never mutated);
	// ConfigYAML its queues.yaml rendering, Checksum its checksum.
	Config     *config.SchedulerConfig
	ConfigYAML []byte
	Checksum   string
}

// Partition is one partition of one RM.
type Partition struct {
	Name, RMID string
	// Names is the resource name table of the partition's RM: Names[i]
	// names index i of every vector in the partition. Each RM has its own
	// table, shared by its partitions.
	Names []string
	// Created is when the partition (its RM's registration) appeared.
	Created time.Time
	Config  *config.PartitionConfig
	// Capacity is the sum of the node capacities.
	Capacity resource.Vector
	Root     *Queue
	// Nodes by ID.
	Nodes []*Node
	// Apps are the active applications, Done the terminated ones still
	// kept (Completed, Failed, Expired, Rejected), each by ID.
	Apps, Done []*App
	// Rules are the active placement rules, the implicit recovery rule last.
	Rules []config.PlacementRule
	// Users and Groups are the user and group trackers, by name.
	Users  []usage.UserDAO
	Groups []usage.GroupDAO
	// Reservations are the reserved nodes.
	Reservations []Reservation
	// Preemptions are the partition's last preemption decisions, oldest
	// first (shared with the partition, which never writes them again).
	Preemptions []partition.PreemptDecision
	// Allocations counts the allocations held now; Decisions and Passes
	// are the partition's running counters.
	Allocations       int
	Decisions, Passes uint64

	queues map[string]*Queue
	nodes  map[string]*Node
	apps   map[string]*App
	order  uint64 // the RM's Order
}

// Queue is one queue of a partition's tree.
type Queue struct {
	Name, Path string
	// Parent is the parent's path ("" for the root).
	Parent  string
	Leaf    bool
	Managed bool
	State   string
	// Guaranteed and Max are the configured (or template) quotas; Headroom
	// is what may still be allocated here, limited by every ancestor.
	Guaranteed, Max, Headroom resource.Quota
	Allocated, Pending        resource.Vector
	// Preempting is what preemption victims here and below hold until the
	// RM releases them.
	Preempting resource.Vector
	// QuotaPreemptionAt is when the queue's usage over its max will be
	// preempted (quota.preemption.delay after it went over); zero when
	// nothing is pending.
	QuotaPreemptionAt    time.Time
	MaxApps, RunningApps uint64
	// Properties are the queue's property map as configured (merged with
	// its parent's inherited ones), or its template's for dynamic queues.
	Properties map[string]string
	// Props is the typed property set the queue runs with.
	Props config.Properties
	// Template applies to dynamic queues created below (nil if none).
	Template *config.ChildTemplate
	// Priority is the current queue priority, math.MinInt32 when nothing
	// is pending.
	Priority int32
	Children []*Queue
	// Apps are the IDs of the active applications of a leaf, sorted.
	Apps []string
}

// App is one application.
type App struct {
	ID, Partition, Queue string
	User                 string
	Groups               []string
	Tags                 map[string]string
	State                app.State
	StateLog             []app.StateChange
	Submitted, Started   time.Time
	Finished             time.Time
	// Message is the last state change's message (the rejection reason of
	// a rejected application).
	Message string
	// BackoffUntil is set while the application is parked after asks that
	// fit no node.
	BackoffUntil time.Time
	// Allocated is what the application holds, placeholders included;
	// Placeholder is the placeholders' part of it.
	Allocated   resource.Vector
	Pending     resource.Vector
	Placeholder resource.Vector
	// MaxAllocated is the high-water mark of Allocated per resource type.
	MaxAllocated resource.Vector
	// History is resource·seconds of the ended allocations per instance
	// type (a copy).
	History app.History
	// MaxPriority is the largest priority of the pending asks.
	MaxPriority int32
	HasPending  bool
	// Asks are the pending asks, Allocations the allocations, each by key.
	Asks        []*Ask
	Allocations []*Allocation
	TaskGroups  []TaskGroup
	// Reserved lists the nodes reserved for the application's asks.
	Reserved []Reservation
}

// TaskGroup is the placeholder data of one gang task group.
type TaskGroup struct {
	Name                      string
	Count, Replaced, TimedOut int
	MinResource               resource.Vector
}

// Ask is a pending ask with the typed reason it is pending.
type Ask struct {
	Key, AppID   string
	Tags         map[string]string
	Created      time.Time
	Res          resource.Vector
	Priority     int32
	RequiredNode string
	Placeholder  bool
	TaskGroup    string
	Originator   bool
	ScaleUp      bool
	// TriggeredPreemption is set once the ask preempted.
	TriggeredPreemption bool
	// Why is the reason of the last scheduling pass (Kind NotTried when no
	// pass has looked at the ask yet).
	Why app.Reason
	// Log is the ask's allocation log, the latest occurrence first.
	Log []app.LogEntry
}

// Allocation is an allocation on a node.
type Allocation struct {
	Key, AppID, NodeID string
	Tags               map[string]string
	Created, Allocated time.Time
	Res                resource.Vector
	Priority           int32
	Placeholder        bool
	// Replacing is the key of the placeholder this allocation replaces
	// (set while the replacement is being confirmed).
	Replacing string
	// PlaceholderUsed marks an allocation that took a placeholder's place.
	PlaceholderUsed bool
	TaskGroup       string
	Originator      bool
	Forced          bool
	PreemptSelf     bool
	// Preempted marks a victim of preemption waiting for the RM's release.
	Preempted bool
}

// Foreign is an allocation of another scheduler on a node.
type Foreign struct {
	Key string
	Res resource.Vector
	// Tags are the RM's allocation tags (shared with the engine).
	Tags        map[string]string
	Priority    int32
	Created     time.Time
	Preemptable bool
}

// Node is one node.
type Node struct {
	ID         string
	Attributes map[string]string
	Capacity   resource.Vector
	Allocated  resource.Vector
	Occupied   resource.Vector
	// Available is Capacity - Allocated - Occupied (negative when the RM
	// forced allocations beyond capacity).
	Available   resource.Vector
	Schedulable bool
	// ReservedFor is the reservation holding the node, nil when none.
	ReservedFor *Reservation
	Allocations []*Allocation
	Foreign     []Foreign
}

// Reservation is a node held for one pending ask.
type Reservation struct {
	AppID, AskKey, NodeID string
}

// Partition returns a partition by name (case-insensitive). A bare name is
// the partition of the RM that registered first among those that have it,
// so an RM registering later never takes the name over; "[rmID]name"
// names the partition of one RM.
func (s *Snapshot) Partition(name string) (*Partition, bool) {
	if strings.HasPrefix(name, "[") {
		if i := strings.IndexByte(name, ']'); i > 0 {
			return s.PartitionOf(name[1:i], name[i+1:])
		}
	}
	for _, p := range s.Partitions {
		if strings.EqualFold(p.Name, name) {
			return p, true
		}
	}
	return nil, false
}

// PartitionOf returns a partition of one RM by name (case-insensitive).
func (s *Snapshot) PartitionOf(rmID, name string) (*Partition, bool) {
	for _, p := range s.Partitions {
		if p.RMID == rmID && strings.EqualFold(p.Name, name) {
			return p, true
		}
	}
	return nil, false
}

// RM returns a registered resource manager by ID.
func (s *Snapshot) RM(id string) (*RM, bool) {
	for _, r := range s.RMs {
		if r.ID == id {
			return r, true
		}
	}
	return nil, false
}

// Queue returns a queue by its full path (case-insensitive).
func (p *Partition) Queue(path string) (*Queue, bool) {
	q, ok := p.queues[strings.ToLower(path)]
	return q, ok
}

// Node returns a node by ID.
func (p *Partition) Node(id string) (*Node, bool) {
	n, ok := p.nodes[id]
	return n, ok
}

// App returns an application by ID, active or terminated.
func (p *Partition) App(id string) (*App, bool) {
	a, ok := p.apps[id]
	return a, ok
}

// EachQueue calls fn for every queue, parents first, children by name.
func (p *Partition) EachQueue(fn func(*Queue)) {
	var walk func(*Queue)
	walk = func(q *Queue) {
		fn(q)
		for _, c := range q.Children {
			walk(c)
		}
	}
	if p.Root != nil {
		walk(p.Root)
	}
}

// ResourceName returns the resource name of index i ("" if unknown).
func (p *Partition) ResourceName(i int) string {
	if i < len(p.Names) {
		return p.Names[i]
	}
	return ""
}

// Map converts a vector of the partition to named quantities, omitting
// zeros.
func (p *Partition) Map(v resource.Vector) map[string]int64 {
	m := make(map[string]int64)
	for i, x := range v {
		if x != 0 && i < len(p.Names) {
			m[p.Names[i]] = x
		}
	}
	return m
}

// QuotaMap converts a quota to named limits: limited types only, with 0
// for an unavailable type.
func (p *Partition) QuotaMap(q resource.Quota) map[string]int64 {
	m := make(map[string]int64)
	mask := q.Mask()
	limits := q.Limits()
	for i := range limits {
		if mask.Has(resource.Index(i)) && i < len(p.Names) {
			m[p.Names[i]] = limits[i]
		}
	}
	return m
}

// sortPartitions orders partitions: "default" first, then by name, then
// by the order their RMs first registered.
func sortPartitions(ps []*Partition) {
	slices.SortFunc(ps, func(a, b *Partition) int {
		ad, bd := a.Name == config.DefaultPartition, b.Name == config.DefaultPartition
		switch {
		case ad && !bd:
			return -1
		case bd && !ad:
			return 1
		}
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return cmp.Compare(a.order, b.order)
	})
}
