// Package clock is the only source of "now" for Paddock's core: a real clock
// for servers and a virtual clock that tests and the trace simulator move by
// hand, so every timer in the scheduler is deterministic under test.
package clock

import (
	"sync/atomic"
	"time"
)

// Clock tells the current time.
type Clock interface {
	Now() time.Time
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Virtual is a clock that only moves when told to. It is safe for concurrent
// use: readers may ask the time while one goroutine advances it.
type Virtual struct {
	ns atomic.Int64
}

// NewVirtual returns a virtual clock set to start.
func NewVirtual(start time.Time) *Virtual {
	v := &Virtual{}
	v.ns.Store(start.UnixNano())
	return v
}

// Now returns the virtual time.
func (v *Virtual) Now() time.Time { return time.Unix(0, v.ns.Load()).UTC() }

// Set moves the clock to t. Moving backwards is ignored: virtual time, like
// real time, never runs backwards, so timers never fire twice.
func (v *Virtual) Set(t time.Time) {
	n := t.UnixNano()
	for {
		cur := v.ns.Load()
		if n <= cur || v.ns.CompareAndSwap(cur, n) {
			return
		}
	}
}

// Advance moves the clock forward by d (negative durations are ignored) and
// returns the new time.
func (v *Virtual) Advance(d time.Duration) time.Time {
	if d > 0 {
		v.ns.Add(int64(d))
	}
	return v.Now()
}
