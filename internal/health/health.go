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
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/paddock-sched/paddock/internal/core/snapshot"
)

// DefaultInterval is how often Run checks (reference: health.checkInterval,
// 30 s).
const DefaultInterval = 30 * time.Second

// IntervalKey is the extra configuration key of the check interval.
const IntervalKey = "health.checkInterval"

// Source gives the current snapshot.
type Source interface {
	Snapshot(ctx context.Context) (*snapshot.Snapshot, error)
}

// Checker runs the checks on snapshots of one source.
type Checker struct {
	src Source

	mu       sync.Mutex
	interval time.Duration
	changed  chan struct{} // closed and replaced when the interval changes
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
	return &Checker{src: src, interval: interval, changed: make(chan struct{})}
}

// Interval is how often Run checks; <= 0 when periodic checks are off.
func (c *Checker) Interval() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.interval
}

// SetInterval changes how often Run checks; <= 0 stops the periodic checks
// (Check still runs on demand). A running Run takes it at once: the next
// check is due the new interval after the last one.
func (c *Checker) SetInterval(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d == c.interval {
		return
	}
	c.interval = d
	close(c.changed)
	c.changed = make(chan struct{})
}

// Apply reads health.checkInterval from an RM's extra configuration
// (reference §1.11, hot reloaded): a Go duration such as "30s", <= 0
// disabling the periodic checks; absent means DefaultInterval. An invalid
// value is reported and leaves the interval alone.
func (c *Checker) Apply(extra map[string]string) error {
	v, ok := extra[IntervalKey]
	if !ok {
		c.SetInterval(DefaultInterval)
		return nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return fmt.Errorf("%s: %q is not a duration", IntervalKey, v)
	}
	c.SetInterval(d)
	return nil
}

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

// Run checks at once and then every interval until ctx is done, following
// interval changes; while the interval is <= 0 it only waits.
func (c *Checker) Run(ctx context.Context) {
	c.Check(ctx)
	for {
		c.mu.Lock()
		interval, changed, at := c.interval, c.changed, c.at
		c.mu.Unlock()
		var due <-chan time.Time
		var t *time.Timer
		if interval > 0 {
			t = time.NewTimer(max(0, time.Until(at.Add(interval))))
			due = t.C
		}
		select {
		case <-ctx.Done():
		case <-changed:
		case <-due:
			c.Check(ctx)
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}
