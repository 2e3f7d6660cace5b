// Package history keeps the application and container counts of the last
// 24 hours, sampled periodically from snapshots, for the REST history
// endpoints and state dumps (reference §5: /ws/v1/history/apps and
// /ws/v1/history/containers).
package history

import (
	"context"
	"sync"
	"time"

	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/snapshot"
)

// DefaultInterval and DefaultCapacity give the reference's 24 hours of
// one sample a minute.
const (
	DefaultInterval = time.Minute
	DefaultCapacity = 24 * 60
)

// Sample is one point of the history.
type Sample struct {
	Time time.Time
	// Apps counts the running applications (state Running), the
	// reference's running applications gauge, which its web UI charts as
	// "Running Applications"; Containers the allocations held; both over
	// all partitions.
	Apps, Containers int
}

// History is a ring of samples, safe for concurrent use.
type History struct {
	mu    sync.Mutex
	ring  []Sample
	start int
	n     int
}

// New returns a history keeping the newest capacity samples (<= 0:
// DefaultCapacity).
func New(capacity int) *History {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	return &History{ring: make([]Sample, capacity)}
}

// Count returns the sample of a snapshot at time now.
func Count(s *snapshot.Snapshot, now time.Time) Sample {
	out := Sample{Time: now}
	for _, p := range s.Partitions {
		for _, a := range p.Apps {
			if a.State == app.Running {
				out.Apps++
			}
		}
		out.Containers += p.Allocations
	}
	return out
}

// Add appends a sample, dropping the oldest when full.
func (h *History) Add(s Sample) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == len(h.ring) {
		h.ring[h.start] = s
		h.start = (h.start + 1) % len(h.ring)
		return
	}
	h.ring[(h.start+h.n)%len(h.ring)] = s
	h.n++
}

// Samples returns the samples, oldest first (never nil).
func (h *History) Samples() []Sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Sample, h.n)
	for i := range out {
		out[i] = h.ring[(h.start+i)%len(h.ring)]
	}
	return out
}

// Source gives the current snapshot.
type Source interface {
	Snapshot(ctx context.Context) (*snapshot.Snapshot, error)
}

// Run samples src at once and then every interval (<= 0: DefaultInterval)
// until ctx is done. Times come from clk.
func (h *History) Run(ctx context.Context, src Source, clk clock.Clock, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	sample := func() {
		if s, err := src.Snapshot(ctx); err == nil {
			h.Add(Count(s, clk.Now()))
		}
	}
	sample()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			sample()
		}
	}
}
