// Package engine owns the whole scheduler state: the registered resource
// managers, their partitions and the configuration each runs with. It is a
// single-writer, steppable engine: its owner calls mutating methods and
// Step from one goroutine, reads the outboxes, and never shares the live
// objects with other goroutines. Tests and the simulator drive it directly
// on virtual time.
package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/core/latency"
	"github.com/paddock-sched/paddock/internal/core/partition"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Engine is the scheduler core.
type Engine struct {
	rms map[string]*RM
	// sorted are the RMs of rms in ID order (the per-pass loops read it
	// rather than sorting the IDs every time)
	sorted []*RM
	// registrations counts the RM IDs ever registered; it gives RM.Order.
	registrations uint64
	// typeLimit is the resource type limit of registries made from now
	// on (0 means resource.MaxTypes).
	typeLimit int
	// latency times the scheduling phases of every partition, nil for none.
	latency *latency.Recorder
	// batch is the owner's batch function, which every partition calls
	// through between (SetBatch).
	batch func()
	// slice, when not zero, bounds a pass that others wait for (SetSlice);
	// clock and waiting are its clock and the owner's test for requests
	// waiting to be taken in. running is the partition whose pass runs,
	// passStart and firstBatch when it began and first called between.
	slice      time.Duration
	clock      func() time.Time
	waiting    func() bool
	running    *partition.Partition
	passStart  time.Time
	firstBatch time.Time
	yielded    bool
	// logs are the loggers every partition logs to (nil: none).
	logs *partition.Loggers
}

// SetLoggers installs the loggers of every partition, present and future
// (nil: none).
func (e *Engine) SetLoggers(l *partition.Loggers) {
	e.logs = l
	for _, rm := range e.rms {
		for _, p := range rm.partitions {
			p.SetLoggers(l)
		}
	}
}

// SetLatency installs the recorder that times the scheduling phases of
// every partition, present and future (nil: none).
func (e *Engine) SetLatency(r *latency.Recorder) {
	e.latency = r
	for _, rm := range e.rms {
		for _, p := range rm.partitions {
			p.SetLatency(r)
		}
	}
}

// SetBatch installs f as the owner's batch function: every partition's
// pass calls it (through between, which each partition has from its
// creation) every partition.BatchCheck allocations, between two
// decisions, with everything decided so far applied and in the outboxes,
// so the owner may drain and deliver them while a long pass runs. f must
// not change the engine's state other than by draining outboxes. nil
// removes it.
func (e *Engine) SetBatch(f func()) { e.batch = f }

// SetSlice makes a pass that has run for d end early, between two
// decisions, when another partition has work or waiting() reports
// requests waiting for the owner to take in: a burst of one RM then
// delays the other RMs' decisions and everyone's requests by about d,
// not by its whole pass. The pass ends only after it has placed
// something (at a batch call) and has run at least twice as long as it
// took to place its first partition.BatchCheck asks, so that a pass
// that first walks many asks that fit nowhere still spends most of its
// time placing. The partition stays dirty and the next Step goes on. now
// reads the wall clock; d = 0 (the default) never ends a pass early, and
// a virtual-time owner leaves it so (decisions then do not depend on the
// machine's speed).
func (e *Engine) SetSlice(d time.Duration, now func() time.Time, waiting func() bool) {
	e.slice, e.clock, e.waiting = d, now, waiting
}

// between is every partition's batch function: the owner's, then
// whether the running pass should end (SetSlice).
func (e *Engine) between() bool {
	if e.batch != nil {
		e.batch()
	}
	if e.slice == 0 || e.running == nil {
		return false
	}
	now := e.clock()
	if e.firstBatch.IsZero() {
		e.firstBatch = now
	}
	ran := now.Sub(e.passStart)
	if ran < e.slice || ran < 2*e.firstBatch.Sub(e.passStart) {
		return false
	}
	if e.waiting() || e.contended() {
		e.yielded = true
		return true
	}
	return false
}

// contended reports whether a partition other than the running one, of
// an RM not paused, has work.
func (e *Engine) contended() bool {
	for _, rm := range e.sorted {
		if rm.paused {
			continue
		}
		for _, p := range rm.parts {
			if p != e.running && p.Dirty() {
				return true
			}
		}
	}
	return false
}

// Yielded reports whether a pass of the last Step ended early
// (SetSlice): the owner should step again soon.
func (e *Engine) Yielded() bool { return e.yielded }

// Predicate is an RM's veto on placing an ask on a node
// (partition.Predicate).
type Predicate = partition.Predicate

// SetPredicate installs an RM's node check on all its partitions, present
// and future.
func (e *Engine) SetPredicate(rmID string, pred Predicate) {
	rm, ok := e.rms[rmID]
	if !ok {
		return
	}
	rm.predicate = pred
	for _, p := range rm.partitions {
		p.SetPredicate(pred)
	}
}

// SetPreemptCheck installs an RM's check of preemption plans (SI
// PreemptionPredicates) on all its partitions, present and future.
func (e *Engine) SetPreemptCheck(rmID string, c partition.PreemptCheck) {
	rm, ok := e.rms[rmID]
	if !ok {
		return
	}
	rm.preemptCheck = c
	for _, p := range rm.partitions {
		p.SetPreemptCheck(c)
	}
}

// SetOnPlaced installs f on all of an RM's partitions, present and
// future, as their placement function (partition.SetOnPlaced); nil
// removes it.
func (e *Engine) SetOnPlaced(rmID string, f func()) {
	rm, ok := e.rms[rmID]
	if !ok {
		return
	}
	rm.onPlaced = f
	for _, p := range rm.partitions {
		p.SetOnPlaced(f)
	}
}

// SetPacer installs pc as the pacer of all of an RM's partitions, present
// and future (partition.SetPacer); nil removes it.
func (e *Engine) SetPacer(rmID string, pc partition.Pacer) {
	rm, ok := e.rms[rmID]
	if !ok {
		return
	}
	rm.pacer = pc
	for _, p := range rm.partitions {
		p.SetPacer(pc)
	}
}

// RM is one registered resource manager and its partitions.
type RM struct {
	ID string
	// Order is the rank of the ID's first registration (1 for the first
	// RM); registering again keeps it. The RM registered first answers for
	// a bare partition name in REST.
	Order       uint64
	PolicyGroup string
	Config      *config.SchedulerConfig
	Extra       map[string]string
	partitions  map[string]*partition.Partition
	names       []string               // partition names, sorted
	parts       []*partition.Partition // the partitions in names order
	// reg interns the RM's resource names, shared by its partitions; a
	// new registration starts a new one.
	reg       *resource.Registry
	removed   []*partition.Partition
	predicate Predicate
	// preemptCheck is the RM's PreemptionPredicates, nil for none.
	preemptCheck partition.PreemptCheck
	// onPlaced is the RM's placement function (SetOnPlaced), nil for none.
	onPlaced func()
	// pacer bounds how fast the RM is given allocations, nil for no bound.
	pacer  partition.Pacer
	events bool
	sink   func(*event.Record)
	// paused is set while the RM's callbacks are stalled (Pause): its
	// partitions run their timers but no pass
	paused bool
}

// New returns an engine with no resource managers.
func New() *Engine {
	return &Engine{rms: map[string]*RM{}}
}

// SetTypeLimit sets how many resource types (vcore and memory included)
// each resource manager registered from now on may use, clamped to
// 2..resource.MaxTypes; 0 means resource.MaxTypes. Every RM has its own
// registry, so one RM's types never count against another's.
func (e *Engine) SetTypeLimit(n int) { e.typeLimit = n }

// Registry is the resource name registry of an RM's partitions, nil for an
// RM that is not registered. Call it on the engine's goroutine; the
// registry's lookups are then safe on any.
func (e *Engine) Registry(rmID string) *resource.Registry {
	if rm, ok := e.rms[rmID]; ok {
		return rm.reg
	}
	return nil
}

// Registry is the RM's resource name registry.
func (rm *RM) Registry() *resource.Registry { return rm.reg }

// parseConfig parses a configuration string; the empty string is the
// built-in default (reference §1.1).
func parseConfig(text string) (*config.SchedulerConfig, error) {
	if strings.TrimSpace(text) == "" {
		return config.Default(), nil
	}
	return config.Parse([]byte(text))
}

// RegisterRM registers a resource manager with its configuration. A
// re-registration by the same ID first removes everything the RM had (its
// partitions, nodes and applications), so the RM can resync from scratch.
// A bad configuration rejects the registration and changes nothing.
func (e *Engine) RegisterRM(id, policyGroup, cfgText string, extra map[string]string) error {
	if err := CheckRMID(id); err != nil {
		return fmt.Errorf("register: %w", err)
	}
	cfg, err := parseConfig(cfgText)
	if err != nil {
		return fmt.Errorf("register %s: %w", id, err)
	}
	rm := &RM{ID: id, PolicyGroup: policyGroup, Config: cfg, Extra: extra, partitions: map[string]*partition.Partition{},
		reg: resource.NewLimitedRegistry(e.typeLimit)}
	for i := range cfg.Partitions {
		pc := &cfg.Partitions[i]
		p, err := partition.New(id, rm.reg, pc)
		if err != nil {
			return fmt.Errorf("register %s: %w", id, err)
		}
		p.SetLoggers(e.logs)
		p.SetLatency(e.latency)
		p.SetBatch(e.between)
		rm.partitions[pc.Name] = p
		rm.names = append(rm.names, pc.Name)
	}
	slices.Sort(rm.names)
	rm.sortParts()
	rm.applyExtra()
	if old, ok := e.rms[id]; ok {
		rm.Order = old.Order
	} else {
		e.registrations++
		rm.Order = e.registrations
	}
	e.rms[id] = rm // replaces (and so wipes) a previous registration
	// a new slice: a caller may still range over the old one
	sorted := make([]*RM, 0, len(e.rms))
	for _, id := range e.RMs() {
		sorted = append(sorted, e.rms[id])
	}
	e.sorted = sorted
	return nil
}

// Empty reports whether the RM holds no nodes and no applications in any
// partition.
func (rm *RM) Empty() bool {
	for _, p := range rm.parts {
		if p.NodeCount() > 0 || p.AppCount() > 0 {
			return false
		}
	}
	return true
}

// Unregister forgets a resource manager and everything it had; it reports
// whether the RM was registered. A later registration of the ID is a new
// one (with a new Order).
func (e *Engine) Unregister(id string) bool {
	if _, ok := e.rms[id]; !ok {
		return false
	}
	delete(e.rms, id)
	sorted := make([]*RM, 0, len(e.rms))
	for _, rm := range e.sorted {
		if rm.ID != id {
			sorted = append(sorted, rm)
		}
	}
	e.sorted = sorted
	return true
}

// Registered returns the registered resource managers in ID order. The
// slice is the engine's own and changes with the next registration: do
// not modify or keep it.
func (e *Engine) Registered() []*RM { return e.sorted }

// sortParts lists the partitions in names order.
func (rm *RM) sortParts() {
	rm.parts = make([]*partition.Partition, 0, len(rm.names))
	for _, n := range rm.names {
		rm.parts = append(rm.parts, rm.partitions[n])
	}
}

// MaxRMIDLength is the longest resource manager ID.
const MaxRMIDLength = 128

// CheckRMID reports whether id can name a resource manager: 1 to
// MaxRMIDLength ASCII letters, digits, '.', '_', ':' or '-', starting with
// a letter or a digit. Such an ID is safe in logs, metrics labels and REST
// paths ("[rmID]partition").
func CheckRMID(id string) error {
	if id == "" {
		return errors.New("rmID is empty")
	}
	if len(id) > MaxRMIDLength {
		return fmt.Errorf("rmID of %d bytes is longer than %d", len(id), MaxRMIDLength)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || (c != '.' && c != '_' && c != ':' && c != '-')) {
			return fmt.Errorf("rmID %q is not valid: use letters, digits, '.', '_', ':' and '-', starting with a letter or digit", id)
		}
	}
	return nil
}

// RM returns a registered resource manager.
func (e *Engine) RM(id string) (*RM, bool) {
	rm, ok := e.rms[id]
	return rm, ok
}

// RMCount is the number of registered resource managers.
func (e *Engine) RMCount() int { return len(e.rms) }

// RMs returns the registered resource manager IDs, sorted.
func (e *Engine) RMs() []string {
	ids := make([]string, 0, len(e.rms))
	for id := range e.rms {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Partition returns the named partition of an RM ("" means default; the
// reference's "[rmID]name" form is accepted).
func (e *Engine) Partition(rmID, name string) (*partition.Partition, error) {
	rm, ok := e.rms[rmID]
	if !ok {
		return nil, fmt.Errorf("resource manager %q is not registered", rmID)
	}
	// the reference's internal form "[rmID]name" names the same partition
	name = strings.TrimPrefix(name, "["+rmID+"]")
	if name == "" || strings.EqualFold(name, config.DefaultPartition) {
		name = config.DefaultPartition
	}
	p, ok := rm.partitions[name]
	if !ok {
		return nil, fmt.Errorf("partition %q of resource manager %s does not exist", name, rmID)
	}
	return p, nil
}

// Partitions returns an RM's partitions in name order.
func (rm *RM) Partitions() []*partition.Partition { return slices.Clone(rm.parts) }

// UpdateConfig reloads an RM's configuration (reference §1.1). A reload
// whose checksum equals the active one is a successful no-op. The reload is
// all-or-nothing: it is validated completely, then applied to every
// partition; partitions missing from the new configuration are removed
// (their applications fail, their allocations are released to the RM).
func (e *Engine) UpdateConfig(rmID, cfgText string, extra map[string]string, now time.Time) error {
	rm, ok := e.rms[rmID]
	if !ok {
		return fmt.Errorf("update configuration: resource manager %q is not registered", rmID)
	}
	cfg, err := parseConfig(cfgText)
	if err != nil {
		return fmt.Errorf("update configuration: %w", err)
	}
	if extra != nil {
		rm.Extra = extra
		rm.applyExtra()
	}
	if cfg.Checksum == rm.Config.Checksum {
		return nil
	}
	// dry run: every partition's new tree must build on its own, and
	// existing partitions must accept the change
	for i := range cfg.Partitions {
		pc := &cfg.Partitions[i]
		if _, err := partition.New(rmID, rm.reg, pc); err != nil {
			return fmt.Errorf("update configuration: %w", err)
		}
		if p, ok := rm.partitions[pc.Name]; ok {
			if err := p.CheckReconfigure(pc); err != nil {
				return fmt.Errorf("update configuration: %w", err)
			}
		}
	}
	keep := map[string]bool{}
	for i := range cfg.Partitions {
		pc := &cfg.Partitions[i]
		keep[pc.Name] = true
		if p, ok := rm.partitions[pc.Name]; ok {
			if err := p.Reconfigure(pc, now); err != nil {
				// CheckReconfigure passed, so this is a broken invariant
				return fmt.Errorf("update configuration: partition %s: %w", pc.Name, err)
			}
			continue
		}
		p, _ := partition.New(rmID, rm.reg, pc)
		p.SetLoggers(e.logs)
		p.SetPredicate(rm.predicate)
		p.SetPreemptCheck(rm.preemptCheck)
		p.SetOnPlaced(rm.onPlaced)
		p.SetPacer(rm.pacer)
		p.SetLatency(e.latency)
		p.SetEventSink(rm.sinkFor())
		p.SetBatch(e.between)
		rm.partitions[pc.Name] = p
	}
	for name, p := range rm.partitions {
		if !keep[name] {
			p.Shutdown(now, "PartitionRemoved")
			// the partition's final messages still reach the RM
			rm.removed = append(rm.removed, p)
			delete(rm.partitions, name)
		}
	}
	rm.names = rm.names[:0]
	for n := range rm.partitions {
		rm.names = append(rm.names, n)
	}
	slices.Sort(rm.names)
	rm.sortParts()
	rm.Config = cfg
	return nil
}

// Step fires timers due at now and runs a scheduling pass on every
// partition with something to do, in a deterministic order. It returns the
// number of allocations made.
func (e *Engine) Step(now time.Time) int {
	made := 0
	e.yielded = false
	for _, rm := range e.sorted {
		for _, p := range rm.parts {
			p.Tick(now)
			if !rm.paused {
				made += e.schedule(p, now)
			}
		}
	}
	return made
}

// schedule runs a pass of p, timed for SetSlice.
func (e *Engine) schedule(p *partition.Partition, now time.Time) int {
	if e.slice == 0 {
		return p.Schedule(now)
	}
	e.running, e.passStart, e.firstBatch = p, e.clock(), time.Time{}
	made := p.Schedule(now)
	e.running = nil
	return made
}

// Pause stops (on) or resumes the scheduling passes of an RM's partitions:
// the service pauses an RM that has not returned from a callback for long,
// so that what it decides for the RM does not pile up unheard. Timers
// still fire (a gang's timeout, an application's expiry). On resuming,
// every partition of the RM runs a pass again, its asks refused while the
// RM was stalled included.
func (e *Engine) Pause(rmID string, on bool) {
	rm, ok := e.rms[rmID]
	if !ok || rm.paused == on {
		return
	}
	rm.paused = on
	if !on {
		for _, p := range rm.parts {
			p.Reconsider()
		}
	}
}

// outboxesDo calls fn for the outbox of every partition of the RM, those
// removed since the last Delivered first.
func (rm *RM) outboxesDo(fn func(*partition.Outbox)) {
	for _, p := range rm.removed {
		fn(&p.Out)
	}
	for _, p := range rm.parts {
		fn(&p.Out)
	}
}

// Outboxes appends to dst the RM's outboxes that hold something, those of
// partitions removed since the last Delivered first, and returns it. The
// caller reads them in place and calls Delivered when it is done, so that
// the outboxes keep their arrays (a delivery per allocation would regrow
// them every time).
func (rm *RM) Outboxes(dst []*partition.Outbox) []*partition.Outbox {
	rm.outboxesDo(func(o *partition.Outbox) {
		if !o.Empty() {
			dst = append(dst, o)
		}
	})
	return dst
}

// Delivered empties the RM's outboxes and forgets its removed partitions.
func (rm *RM) Delivered() {
	rm.outboxesDo((*partition.Outbox).Reset)
	rm.removed = nil
}

// PartitionsDo calls fn for each of the RM's partitions, in name order.
func (rm *RM) PartitionsDo(fn func(*partition.Partition)) {
	for _, p := range rm.parts {
		fn(p)
	}
}

// Undelivered reports whether the RM's outboxes hold allocations or
// releases it has not been told of (not drained yet).
func (rm *RM) Undelivered() bool {
	found := false
	rm.outboxesDo(func(o *partition.Outbox) { found = found || o.Placements() })
	return found
}

// Verify checks every partition's invariants.
func (e *Engine) Verify() error {
	var errs []error
	for _, id := range e.RMs() {
		for _, p := range e.rms[id].Partitions() {
			if err := p.Verify(); err != nil {
				errs = append(errs, fmt.Errorf("partition %s of %s: %w", p.Name, id, err))
			}
		}
	}
	return errors.Join(errs...)
}

// Dirty reports whether a step could allocate something without new
// input: some partition changed since its last pass. With Dirty false and
// no input, a step before NextTimer decides nothing, so a virtual-time
// driver may skip to the next input or timer.
func (e *Engine) Dirty() bool {
	for _, rm := range e.sorted {
		for _, p := range rm.parts {
			if p.Dirty() {
				return true
			}
		}
	}
	return false
}

// NextTimer returns the earliest time any partition has timed work, or the
// zero time when none has.
func (e *Engine) NextTimer() time.Time {
	var next time.Time
	for _, id := range e.RMs() {
		for _, p := range e.rms[id].Partitions() {
			if t := p.NextTimer(); !t.IsZero() && (next.IsZero() || t.Before(next)) {
				next = t
			}
		}
	}
	return next
}

// applyExtra applies the extra configuration keys the engine reads
// (reference §1.11): event.trackingEnabled (default true).
func (rm *RM) applyExtra() {
	rm.events = !strings.EqualFold(strings.TrimSpace(rm.Extra["event.trackingEnabled"]), "false")
	for _, p := range rm.partitions {
		p.SetEventSink(rm.sinkFor())
	}
}

func (rm *RM) sinkFor() func(*event.Record) {
	if !rm.events {
		return nil
	}
	return rm.sink
}

// SetEventSink installs the function an RM's event records go to (nil:
// none). Events flow only while event.trackingEnabled is not false.
func (e *Engine) SetEventSink(rmID string, sink func(*event.Record)) {
	rm, ok := e.rms[rmID]
	if !ok {
		return
	}
	rm.sink = sink
	rm.applyExtra()
}
