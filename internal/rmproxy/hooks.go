package rmproxy

import (
	"context"
	"log/slog"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/core/latency"
	"github.com/paddock-sched/paddock/internal/core/partition"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Hooks let other packages (metrics, the event history, logging) observe
// the service. Every hook runs on the service goroutine, so it must return
// quickly and never block; nil hooks cost nothing.
type Hooks struct {
	// Event receives every event record of every RM, as it is made, with
	// the RM's resource registry, which names the record's vector. The
	// record is the caller's: the hook copies what it keeps.
	Event func(rmID string, reg *resource.Registry, r *event.Record)
	// Step receives the duration of every scheduling step and the number
	// of allocations it made.
	Step func(d time.Duration, made int)
	// Latency receives, after every scheduling step, the durations of the
	// scheduling phases timed in it (queue and application choice, node
	// search, RM node checks, preemption attempts). Setting it makes the
	// engine time them.
	Latency func(h *[latency.Phases]latency.Histogram)
	// Tally receives what the service did since the previous report, once
	// per round of work, when something happened.
	Tally func(t *Tally)
	// Extra receives an RM's extra configuration when it registers, and
	// when a configuration update carries one.
	Extra func(rmID string, extra map[string]string)
	// Logger receives registrations, configuration changes and, at debug
	// level, every rejection; nil means no logging.
	Logger *slog.Logger
	// Loggers, when set, gives the scheduling engine its loggers by name
	// (core.scheduler.allocation, ...: partition.NewLoggers).
	Loggers func(name string) *slog.Logger
}

// QueueKey names a queue of a partition.
type QueueKey struct{ Partition, Queue string }

// QueueTally counts one queue's outcomes.
type QueueTally struct {
	// Allocated and Released count allocations made on and released from
	// the queue.
	Allocated, Released int
	// Completed, Failed and Rejected count applications of the queue that
	// reached those states.
	Completed, Failed, Rejected int
}

// Tally counts outcomes. It is reused after the Tally hook returns: the
// hook must copy what it keeps.
type Tally struct {
	// Allocated, Released and RejectedAllocs count allocations the
	// scheduler made (not those the RM placed itself), allocations released (by the RM or the scheduler) and asks or
	// allocations rejected.
	Allocated, Released, RejectedAllocs int
	// AppsSubmitted counts applications the RMs submitted; AppsAccepted
	// and AppsRejected what became of them.
	AppsSubmitted, AppsAccepted, AppsRejected int
	// NodesRemoved counts decommissioned nodes.
	NodesRemoved int
	// Queues has the per-queue counts.
	Queues map[QueueKey]*QueueTally
}

func (t *Tally) empty() bool {
	return t.Allocated == 0 && t.Released == 0 && t.RejectedAllocs == 0 && t.AppsSubmitted == 0 &&
		t.AppsAccepted == 0 && t.AppsRejected == 0 && t.NodesRemoved == 0 && len(t.Queues) == 0
}

func (t *Tally) queue(partitionName, path string) *QueueTally {
	if t.Queues == nil {
		t.Queues = map[QueueKey]*QueueTally{}
	}
	k := QueueKey{partitionName, path}
	q := t.Queues[k]
	if q == nil {
		q = &QueueTally{}
		t.Queues[k] = q
	}
	return q
}

// SetHooks installs hooks; call it before resource managers register.
func (s *Service) SetHooks(h Hooks) {
	_ = s.call(func(time.Time) error {
		s.hooks = h
		s.latency = nil
		if h.Latency != nil {
			s.latency = latency.NewRecorder()
		}
		s.eng.SetLatency(s.latency)
		if h.Loggers != nil {
			s.eng.SetLoggers(partition.NewLoggers(h.Loggers))
		} else {
			s.eng.SetLoggers(nil)
		}
		return nil
	})
}

// counting reports whether outcomes are being tallied.
func (s *Service) counting() bool { return s.hooks.Tally != nil }

// reportTally hands the tally to its hook and resets it.
func (s *Service) reportTally() {
	if s.hooks.Tally != nil && !s.tally.empty() {
		s.hooks.Tally(&s.tally)
	}
	clear(s.tally.Queues)
	s.tally = Tally{Queues: s.tally.Queues}
	clear(s.removedApps)
}

// countBox tallies an outbox about to be delivered.
func (s *Service) countBox(rmID string, b *partition.Outbox) {
	t := &s.tally
	for _, r := range b.Released {
		if !r.Again { // counted when the RM was first told
			t.Released++
		}
	}
	t.RejectedAllocs += len(b.RejectedAllocs)
	t.AppsAccepted += len(b.AcceptedApps)
	t.AppsRejected += len(b.RejectedApps)
	if len(b.Allocations)+len(b.Released)+len(b.AppUpdates) == 0 {
		return
	}
	p, err := s.eng.Partition(rmID, b.Partition)
	if err != nil {
		return // a removed partition: its queues are gone too
	}
	leaf := func(appID string) string {
		if a, ok := p.App(appID); ok {
			return a.QueuePath
		}
		return s.removedApps[QueueKey{p.Name, appID}]
	}
	for _, x := range b.Allocations {
		if x.Forced {
			continue // the RM placed it (recovery): not a scheduling decision
		}
		t.Allocated++
		if q := leaf(x.AppID); q != "" {
			t.queue(p.Name, q).Allocated++
		}
	}
	for _, r := range b.Released {
		if r.Again {
			continue
		}
		if q := leaf(r.AppID); q != "" {
			t.queue(p.Name, q).Released++
		}
	}
	for _, u := range b.AppUpdates {
		if u.State != app.Completed && u.State != app.Failed {
			continue
		}
		if q := leaf(u.AppID); q != "" {
			if u.State == app.Completed {
				t.queue(p.Name, q).Completed++
			} else {
				t.queue(p.Name, q).Failed++
			}
		}
	}
}

// noteRemoval remembers the queue of an application the RM removes: the
// partition forgets it at once, but its final outcomes are counted on
// delivery. The removal itself ends the application without a state
// change (no Completed or Failed update), so it is counted here as
// completed, or failed when it was failing.
func (s *Service) noteRemoval(p *partition.Partition, appID string) {
	if !s.counting() {
		return
	}
	a, ok := p.App(appID)
	if !ok || a.State.Terminal() {
		return
	}
	if s.removedApps == nil {
		s.removedApps = map[QueueKey]string{}
	}
	s.removedApps[QueueKey{p.Name, appID}] = a.QueuePath
	if a.State == app.Failing {
		s.tally.queue(p.Name, a.QueuePath).Failed++
	} else {
		s.tally.queue(p.Name, a.QueuePath).Completed++
	}
}

// countRMRelease tallies an allocation the RM releases (asks it cancels
// are not allocations).
func (s *Service) countRMRelease(p *partition.Partition, a *app.App, key string) {
	if !s.counting() {
		return
	}
	if x, ok := a.Allocation(key); ok && !x.Pending() {
		s.tally.Released++
		s.tally.queue(p.Name, a.QueuePath).Released++
	}
}

// logRejections writes an outbox's rejections at debug level.
func (s *Service) logRejections(rmID string, b *partition.Outbox) {
	l := s.hooks.Logger
	if l == nil || !l.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	for _, r := range b.RejectedApps {
		l.Debug("application rejected", "rmID", rmID, "partition", b.Partition, "app", r.AppID, "reason", r.Reason)
	}
	for _, r := range b.RejectedAllocs {
		l.Debug("allocation rejected", "rmID", rmID, "partition", b.Partition, "app", r.AppID, "key", r.ID, "reason", r.Reason)
	}
	for _, r := range b.RejectedNodes {
		l.Debug("node rejected", "rmID", rmID, "node", r.ID, "reason", r.Reason)
	}
}
