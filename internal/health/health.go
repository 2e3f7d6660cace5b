// Package health owns the scheduler's health checks (reference §8): rejected
// requests, negative resources, roll-up consistency, reservations and
// orphan allocations, all computed from snapshots, never from live state.
// A Checker runs them periodically and on demand and keeps the last
// result. Unlike the reference, whose error checks read cumulative counters
// and stay failed until a restart, a failed check recovers as soon as its
// condition clears.
package health

import (
	"context"
	"sync"
	"time"

	"github.com/paddock-sched/paddock/internal/core/snapshot"
)

// DefaultInterval is how often Run checks (reference: health.checkInterval,
// 30 s).
const DefaultInterval = 30 * time.Second

// Source gives the current snapshot.
type Source interface {
	Snapshot(ctx context.Context) (*snapshot.Snapshot, error)
}

// Checker runs the checks on snapshots of one source.
type Checker struct {
	src      Source
	interval time.Duration

	mu       sync.Mutex
	last     Result
	at       time.Time
	ran      bool
	counters snapshot.Counters
	// run serialises check runs, so counters advance in order
	run sync.Mutex
}

// New returns a checker of src that Run repeats every interval (<= 0:
// DefaultInterval). It runs nothing until Check or Run is called.
func New(src Source, interval time.Duration) *Checker {
	if interval <= 0 {
		interval = DefaultInterval
	}
	return &Checker{src: src, interval: interval}
}

// Interval is how often Run checks.
func (c *Checker) Interval() time.Duration { return c.interval }

// Check runs every check now on a fresh snapshot, keeps and returns the
// result. When no snapshot can be had the result is unhealthy and says so.
func (c *Checker) Check(ctx context.Context) Result {
	c.run.Lock()
	defer c.run.Unlock()
	c.mu.Lock()
	prev := c.counters
	c.mu.Unlock()
	var r Result
	snap, err := c.src.Snapshot(ctx)
	if err != nil {
		r = Result{HealthChecks: []Check{{
			Name: "Scheduler state", Description: "Check that the scheduler state can be read",
			DiagnosisMessage: err.Error(),
		}}}
	} else {
		r = Evaluate(snap, prev)
	}
	c.mu.Lock()
	c.last, c.at, c.ran = r, time.Now(), true
	if snap != nil {
		c.counters = snap.Counters
	}
	c.mu.Unlock()
	return r
}

// Last returns the last result and when it was computed; false before the
// first check.
func (c *Checker) Last() (Result, time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last, c.at, c.ran
}

// Run checks at once and then every interval until ctx is done.
func (c *Checker) Run(ctx context.Context) {
	c.Check(ctx)
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.Check(ctx)
		}
	}
}
