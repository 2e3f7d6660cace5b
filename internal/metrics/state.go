package metrics

import (
	"context"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/core/snapshot"
)

// Buckets is the number of node usage buckets: [0,10%], (10%,20%], ...,
// (90%,100%].
const Buckets = 10

// State is the scheduler state the gauges show, read at scrape time.
type State struct {
	// Apps counts applications by lower-case state name, over every
	// partition, terminated ones included until they expire.
	Apps map[string]int
	// ActiveNodes and DrainingNodes count nodes that are schedulable and
	// that are not.
	ActiveNodes, DrainingNodes int
	// NodeUsage counts, per resource name, the nodes in each usage bucket.
	NodeUsage map[string]*[Buckets]int
	// Queues lists every queue of every partition.
	Queues []QueueState
}

// QueueState is one queue's gauges.
type QueueState struct {
	Partition, Queue string
	// Apps counts the queue's own applications by lower-case state name.
	Apps map[string]int
	// Resources maps guaranteed, max, allocated, pending and preempting to the
	// queue's quantities by resource name (unset limits are absent).
	Resources map[string]map[string]int64
	// MaxRunningApps is the queue's maxapplications, 0 when unlimited.
	MaxRunningApps uint64
}

// Source reads the scheduler state for a scrape.
type Source interface {
	MetricsState() (State, error)
}

// Snapshotter publishes snapshots of the scheduler state
// (rmproxy.Service does).
type Snapshotter interface {
	Snapshot(ctx context.Context) (*snapshot.Snapshot, error)
}

// SnapshotSource reads the state from the scheduler's current snapshot,
// so a scrape never pauses scheduling for longer than a snapshot build,
// which concurrent readers share.
type SnapshotSource struct {
	Service Snapshotter
	// Timeout bounds the wait for a snapshot (5 s when 0).
	Timeout time.Duration
}

// MetricsState reads the current snapshot.
func (s SnapshotSource) MetricsState() (State, error) {
	d := s.Timeout
	if d <= 0 {
		d = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	snap, err := s.Service.Snapshot(ctx)
	if err != nil {
		return State{}, err
	}
	return FromSnapshot(snap), nil
}

// FromSnapshot computes the gauges of a snapshot.
func FromSnapshot(snap *snapshot.Snapshot) State {
	st := State{Apps: map[string]int{}, NodeUsage: map[string]*[Buckets]int{}}
	for _, p := range snap.Partitions {
		perQueue := map[string]map[string]int{}
		count := func(a *snapshot.App) {
			name := strings.ToLower(a.State.String())
			st.Apps[name]++
			m := perQueue[strings.ToLower(a.Queue)]
			if m == nil {
				m = map[string]int{}
				perQueue[strings.ToLower(a.Queue)] = m
			}
			m[name]++
		}
		for _, a := range p.Apps {
			count(a)
		}
		for _, a := range p.Done {
			count(a)
		}
		for _, n := range p.Nodes {
			if n.Schedulable {
				st.ActiveNodes++
			} else {
				st.DrainingNodes++
			}
			usage(p, n, st.NodeUsage)
		}
		p.EachQueue(func(q *snapshot.Queue) {
			qs := QueueState{Partition: p.Name, Queue: q.Path, Apps: perQueue[strings.ToLower(q.Path)], MaxRunningApps: q.MaxApps,
				Resources: map[string]map[string]int64{
					"guaranteed": p.QuotaMap(q.Guaranteed), "max": p.QuotaMap(q.Max),
					"allocated": p.Map(q.Allocated), "pending": p.Map(q.Pending),
					"preempting": p.Map(q.Preempting),
				}}
			if qs.Apps == nil {
				qs.Apps = map[string]int{}
			}
			st.Queues = append(st.Queues, qs)
		})
	}
	return st
}

// usage adds a node to the usage buckets of each resource it has.
func usage(p *snapshot.Partition, n *snapshot.Node, out map[string]*[Buckets]int) {
	used := n.Allocated.Add(n.Occupied)
	for i, c := range n.Capacity {
		if c <= 0 {
			continue
		}
		name := p.ResourceName(i)
		if name == "" {
			continue
		}
		b := out[name]
		if b == nil {
			b = new([Buckets]int)
			out[name] = b
		}
		b[bucket(used[i], c)]++
	}
}

// bucket is the usage bucket of used out of capacity: 0 for [0,10%],
// k for (10k%, 10(k+1)%]; over 100% counts as the last.
func bucket(used, capacity int64) int {
	if used <= 0 {
		return 0
	}
	// smallest k with used <= capacity*(k+1)/10, in integers
	k := int((used*Buckets+capacity-1)/capacity) - 1
	return min(max(k, 0), Buckets-1)
}
