// Package partition owns one scheduling partition: its nodes, queue tree
// and applications, the only code that mutates them together (so node,
// queue and application roll-ups change in one place), and the scheduling
// pass that decides allocations and then applies them.
package partition

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/core/latency"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/core/place"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/core/usage"
	"github.com/paddock-sched/paddock/internal/resource"
)

// CompletingTimeout is how long an application without asks or
// allocations stays Completing before it is Completed (reference §3.1).
const CompletingTimeout = 30 * time.Second

// Partition is one partition of one resource manager.
type Partition struct {
	Name string
	RMID string

	reg   *resource.Registry
	cfg   *config.PartitionConfig
	nodes map[string]*node.Node
	// foreignOn maps a foreign allocation's key to the node holding it.
	foreignOn map[string]*node.Node
	index     *node.Index
	// bounds covers the allocations on the nodes (victimbound.go).
	bounds *node.Bounds
	// stale are the nodes whose place in index waits for its next reader
	// (markStale).
	stale map[*node.Node]struct{}
	tree  *queue.Tree
	apps  map[string]*app.App
	// completing holds the deadline of every Completing application.
	completing map[string]time.Time
	// done holds Completed, Failed and Rejected applications until they
	// expire (reference §3.1), for REST and state dumps.
	done map[string]doneApp
	// reserved maps reservation keys (app, ask) to reservations;
	// appReserved an application to its one reservation key.
	reserved    map[string]*reservation
	appReserved map[string]string
	noReserve   bool
	noEvents    bool
	announced   bool // the existing queues were reported to the first sink
	lastWaiting time.Time
	sink        func(*event.Record)
	// rec is the record emitWith passes to the sink
	rec event.Record
	// usageTime is the time of the decision whose user and group usage
	// events are being emitted (zero: the sink's present time)
	usageTime time.Time
	// gangTimers holds the placeholder timeout of gang applications.
	gangTimers map[string]time.Time
	// gangHolds lists, per gang application, the nodes held for it while
	// the victims of its preemption leave (gangpreempt.go).
	gangHolds map[string][]*node.Node
	// retryAt is when a pass should run even if nothing changed (an ask
	// becomes old enough to reserve); zero when nothing waits.
	retryAt time.Time
	// quotaArmed counts the queues with a pending quota-preemption
	// trigger, quotaNext is the earliest trigger still to come
	// (quotapreempt.go).
	quotaArmed int
	quotaNext  time.Time
	cluster    resource.Vector
	// occupied is the sum of the nodes' foreign allocations (bounds.go).
	occupied  resource.Vector
	dirty     bool // something changed that may allow an allocation
	sizeDirty bool // cluster size changed since the tree last saw it

	// predicate, when set, is the RM's veto on a node for an ask
	// (SI Predicates callback); it runs only for nodes that fit.
	predicate Predicate
	// rmPredicate is the RM's check as installed; predicate is it, timed
	// when latency records, and stopped for the rest of a pass once the
	// RM is away (away.go).
	rmPredicate Predicate
	// rmAway is set when the RM's check answered ErrRMUnavailable in the
	// running pass.
	rmAway bool
	// pacer, when set, bounds how fast allocations go to the RM (pace.go).
	pacer Pacer
	// latency times the scheduling phases, nil for none.
	latency *latency.Recorder
	// vetoes counts, per message, the RM's refusals of the latest findNode
	// (only while events flow), for its request event.
	vetoes map[string]int
	// preemptCheck, when set, is the RM's PreemptionPredicates: whether
	// ask x fits node nodeID once victims[0..start] (and, if needed, the
	// following ones) are gone, and the last victim it needed.
	preemptCheck PreemptCheck
	// victimNodes counts the nodes whose allocations the victim search
	// looked at (tests read it).
	victimNodes int
	// batch, when set, is called between decisions of a pass, every
	// BatchCheck allocations, with all of them applied; true ends the
	// pass there (schedule.go).
	batch func() bool
	// onPlaced, when set, is called after every placement of a pass,
	// with it applied (SetOnPlaced).
	onPlaced func()

	// rules are the compiled placement rules.
	rules *place.Rules
	// users tracks user and group usage and enforces their limits.
	users *usage.Manager
	// log holds the engine's loggers (logs.go).
	log *Loggers
	// decisions are the last preemption decisions (explain.go).
	decisions []PreemptDecision
	// lost remembers the allocations released with their node for a
	// while, for the RM's report that it could not bind one (lost.go).
	lost lostAsks

	Out Outbox
	// Stats counts the partition's decisions.
	Stats Stats
}

// Stats are running counters of a partition.
type Stats struct {
	Allocations uint64
	Passes      uint64
	// Preemptions counts the allocations preempted.
	Preemptions uint64
	// Yields counts the passes the batch function ended early.
	Yields uint64
	// RMAway counts the passes that ended because the RM could not be
	// asked about nodes (ErrRMUnavailable).
	RMAway uint64
	// Paced counts the passes the RM's pacer ended (pace.go).
	Paced uint64
}

// New creates a partition from a validated partition configuration.
func New(rmID string, reg *resource.Registry, pc *config.PartitionConfig) (*Partition, error) {
	tree, err := queue.Build(reg, pc)
	if err != nil {
		return nil, err
	}
	w, err := reg.WeightsFromMap(pc.NodeSortPolicy.ResourceWeights)
	if err != nil {
		return nil, fmt.Errorf("partition %s: nodesortpolicy: %w", pc.Name, err)
	}
	rules, err := place.Compile(pc.PlacementRules)
	if err != nil {
		return nil, fmt.Errorf("partition %s: %w", pc.Name, err)
	}
	users := usage.New(reg)
	if err := users.Configure(&pc.Queues[0]); err != nil {
		return nil, fmt.Errorf("partition %s: limits: %w", pc.Name, err)
	}
	p := &Partition{
		users:       users,
		rules:       rules,
		Name:        pc.Name,
		RMID:        rmID,
		reg:         reg,
		cfg:         pc,
		nodes:       map[string]*node.Node{},
		foreignOn:   map[string]*node.Node{},
		index:       node.NewIndex(policyOf(pc), w),
		bounds:      node.NewBounds(),
		tree:        tree,
		apps:        map[string]*app.App{},
		completing:  map[string]time.Time{},
		done:        map[string]doneApp{},
		gangTimers:  map[string]time.Time{},
		gangHolds:   map[string][]*node.Node{},
		reserved:    map[string]*reservation{},
		appReserved: map[string]string{},
		Out:         Outbox{Partition: pc.Name},
	}
	p.noEvents = true // until an event sink is installed
	p.log = quiet
	tree.OnChange(p.queueChanged)
	return p, nil
}

func policyOf(pc *config.PartitionConfig) node.Policy {
	if pc.NodeSortPolicy.Type == config.NodeSortBinPacking {
		return node.BinPacking
	}
	return node.Fair
}

// Reconfigure applies a new validated configuration of this partition at
// time now (the time a lowered max or a changed quota-preemption delay
// counts from).
func (p *Partition) Reconfigure(pc *config.PartitionConfig, now time.Time) error {
	w, err := p.reg.WeightsFromMap(pc.NodeSortPolicy.ResourceWeights)
	if err != nil {
		return fmt.Errorf("partition %s: nodesortpolicy: %w", pc.Name, err)
	}
	if err := p.users.CheckConfigure(&pc.Queues[0]); err != nil {
		return fmt.Errorf("partition %s: limits: %w", pc.Name, err)
	}
	rules, err := place.Compile(pc.PlacementRules)
	if err != nil {
		return fmt.Errorf("partition %s: %w", pc.Name, err)
	}
	if err := p.tree.Reconfigure(pc); err != nil {
		return err
	}
	p.rules = rules
	_ = p.users.Configure(&pc.Queues[0]) // checked above
	p.regroup()
	p.index.Reconfigure(policyOf(pc), w)
	p.cfg = pc
	p.sizeDirty = true
	p.dirty = true
	p.refreshQuota(now)
	return nil
}

// Tree returns the partition's queue tree (read-only use).
func (p *Partition) Tree() *queue.Tree { return p.tree }

// Node returns the node with the given ID.
func (p *Partition) Node(id string) (*node.Node, bool) {
	n, ok := p.nodes[id]
	return n, ok
}

// ExpireAfter is how long terminated applications stay visible before
// they expire (reference §3.1).
const ExpireAfter = 3 * 24 * time.Hour

type doneApp struct {
	app     *app.App
	expires time.Time
}

// App returns the application with the given ID, active or terminated.
func (p *Partition) App(id string) (*app.App, bool) {
	if a, ok := p.apps[id]; ok {
		return a, true
	}
	d, ok := p.done[id]
	return d.app, ok
}

// retire moves a terminated application out of its queue into the done
// list.
func (p *Partition) retire(a *app.App, now time.Time) {
	if q := p.leafOf(a); q != nil {
		q.RemoveApp(a)
		p.appLeft(a, q, now)
	}
	p.releaseGangHolds(a.ID)
	p.lost.dropApp(a.ID)
	delete(p.apps, a.ID)
	delete(p.completing, a.ID)
	p.done[a.ID] = doneApp{app: a, expires: now.Add(ExpireAfter)}
	p.logSummary(a)
}

// NodeCount and AppCount count the partition's nodes and applications.
func (p *Partition) NodeCount() int { return len(p.nodes) }
func (p *Partition) AppCount() int  { return len(p.apps) }

// Cluster is the sum of the capacities of the partition's nodes.
func (p *Partition) Cluster() resource.Vector { return p.cluster }

// EachNode calls fn for every node in the node sort policy's order.
func (p *Partition) EachNode(fn func(*node.Node) bool) { p.nodeIndex().Ascend(fn) }

// EachApp calls fn for every application, in no particular order.
func (p *Partition) EachApp(fn func(*app.App) bool) {
	for _, a := range p.apps {
		if !fn(a) {
			return
		}
	}
}

func (p *Partition) leafOf(a *app.App) *queue.Queue {
	return p.tree.Leaf(a)
}

func (p *Partition) appState(a *app.App, e app.Event, now time.Time, msg string) {
	from := a.State
	changed, err := a.Fire(e, now)
	if err != nil || !changed {
		return
	}
	if l := p.log.Application; on(l) {
		debug(l, "application state changed", slog.String("appID", a.ID), slog.String("from", from.String()),
			slog.String("to", a.State.String()), slog.String("event", e.String()), slog.String("message", msg))
	}
	a.Message = msg
	p.emitApp(event.Set, stateDetails[a.State], a.ID, "", msg, nil, now)
	if a.State == app.Rejected {
		return // rejections are reported as rejected applications
	}
	if msg == "" {
		msg = e.String() // the reference names the event (runApplication, ...)
	}
	p.Out.AppUpdates = append(p.Out.AppUpdates, AppUpdate{
		Partition: p.Name, AppID: a.ID, State: a.State, Time: now.UnixNano(), Message: msg,
		Allocs: len(p.Out.Allocations),
	})
}

// CheckReconfigure reports whether Reconfigure would accept pc, without
// changing anything.
func (p *Partition) CheckReconfigure(pc *config.PartitionConfig) error {
	if _, err := p.reg.WeightsFromMap(pc.NodeSortPolicy.ResourceWeights); err != nil {
		return fmt.Errorf("partition %s: nodesortpolicy: %w", pc.Name, err)
	}
	if err := p.users.CheckConfigure(&pc.Queues[0]); err != nil {
		return fmt.Errorf("partition %s: limits: %w", pc.Name, err)
	}
	if _, err := place.Compile(pc.PlacementRules); err != nil {
		return fmt.Errorf("partition %s: %w", pc.Name, err)
	}
	return p.tree.CheckReconfigure(pc)
}

// Users is the partition's user and group usage tracker (read it on the
// engine goroutine only).
func (p *Partition) Users() *usage.Manager { return p.users }

// Shutdown fails every application of a partition that is being removed
// and releases everything it holds, reporting it all to the RM.
func (p *Partition) Shutdown(now time.Time, reason string) {
	ids := make([]string, 0, len(p.apps))
	for id := range p.apps {
		ids = append(ids, id)
	}
	sortStrings(ids)
	for _, id := range ids {
		a := p.apps[id]
		p.appState(a, app.FailEvent, now, reason)
		p.RemoveApp(id, now)
		p.appState(a, app.FailEvent, now, reason)
		p.logSummary(a)
	}
	for id := range p.nodes {
		n := p.nodes[id]
		p.index.Remove(n)
	}
	clear(p.nodes)
	p.cluster = resource.Vector{}
}

// PreemptCheck is an RM's check of a preemption plan (SI
// PreemptionPredicates): whether ask x fits node nodeID once victims[0]
// to victims[start] are removed, taking further victims in order if it
// must, and the index of the last victim it needed.
type PreemptCheck func(x *app.Allocation, nodeID string, victims []string, start int) (ok bool, last int)

// SetPreemptCheck installs the RM's check of preemption plans; nil (the
// default) accepts every plan.
func (p *Partition) SetPreemptCheck(c PreemptCheck) { p.preemptCheck = c }

// Predicate is the RM's node check: ask x may go to the node only when it
// returns nil (an error says why not). allocate is false when the node is
// checked for a reservation or for a real ask replacing a placeholder
// there, as the reference asks (the Kubernetes shim then leaves out the
// node resources check: the resources are not free yet, or are the
// placeholder's).
type Predicate func(x *app.Allocation, nodeID string, allocate bool) error

// SetPredicate installs the RM's node check: a candidate node that fits an
// ask is only used when pred returns nil. nil removes it.
func (p *Partition) SetPredicate(pred Predicate) {
	p.rmPredicate = pred
	p.timePredicate()
}

// SetLatency installs the recorder that times the scheduling phases
// (nil: none).
func (p *Partition) SetLatency(r *latency.Recorder) {
	p.latency = r
	p.timePredicate()
}

// timePredicate sets predicate to the RM's check, timed as a
// latency.NodeCheck when a recorder is installed.
func (p *Partition) timePredicate() {
	pred, r := p.rmPredicate, p.latency
	if pred == nil {
		p.predicate = nil
		return
	}
	if r == nil {
		p.predicate = p.checkNode(pred)
		return
	}
	p.predicate = p.checkNode(func(x *app.Allocation, nodeID string, allocate bool) error {
		start := r.Start(latency.NodeCheck)
		err := pred(x, nodeID, allocate)
		r.Stop(latency.NodeCheck, start)
		return err
	})
}

// SetBatch installs the function a pass calls every BatchCheck
// allocations, between two decisions, when everything decided so far is
// applied and in the outbox: the engine's owner may deliver the outbox
// there, so the RM hears of allocations while a long pass runs. When it
// returns true the pass ends there, as if it had nothing more to place
// for now, and the partition stays dirty: the next Schedule goes on (the
// engine's owner takes requests in and serves other partitions between).
// The function must not change the partition's state other than by taking
// its outbox. nil (the default) removes it.
func (p *Partition) SetBatch(f func() bool) { p.batch = f }

// SetOnPlaced installs the function a pass calls after every placement
// (one allocation, or a gang's placeholders placed at once), with it
// applied and in the outbox, before the pass looks for the next: the
// engine's owner may hand the outbox to an RM that must hear of each
// allocation before it is asked about the next ask (Predicates), so that
// the RM takes it in while the pass picks that ask and its node. It has
// the constraints of SetBatch's function. nil (the default) removes it.
func (p *Partition) SetOnPlaced(f func()) { p.onPlaced = f }

// PlacementRules describes the active placement rules, the implicit
// recovery rule last.
func (p *Partition) PlacementRules() []config.PlacementRule { return p.rules.Describe() }

// regroup follows a reload of the limits: a running application keeps the
// group the tracker still holds it against (none when the limits that
// tracked it went); one not yet tracked chooses its group again.
func (p *Partition) regroup() {
	for _, a := range p.apps {
		if g, ok := p.users.GroupOf(a.ID); ok {
			a.Group = g
		} else if !a.State.Terminal() {
			a.Group = p.users.SelectGroup(a.User, a.Groups, a.QueuePath)
			if a.PendingCount() > 0 {
				p.users.Pending(a.User, a.Group, a.ID)
			}
		}
	}
}
