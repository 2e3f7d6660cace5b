package scheduler

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/paddock-sched/paddock/internal/clock"
)

// Clock is where the scheduler reads the time. Every timer of the
// scheduler reads it: placeholder timeouts, preemption and quota
// preemption delays, the Completing-to-Completed timer of applications,
// the expiry of rejected and completed applications and of idle remote
// registrations, and the time stamps of events and REST. Its one method is
// the first of k8s.io/utils/clock's PassiveClock, so that package's clocks
// and its fake clocks (k8s.io/utils/clock/testing) fit as they are,
// without Paddock depending on it. The scheduler looks at the clock at
// least every 100 ms of real time, and at once when a FakeClock moves.
//
// The scheduler's time never runs backwards: a Now earlier than one it
// has already seen counts as that one.
type Clock interface {
	Now() time.Time
}

// FakeClock is a Clock that moves only when told to, for tests of an RM
// against an in-process scheduler on virtual time: a placeholder timeout
// of ten minutes passes with one Step. Its methods follow the fake clocks
// of k8s.io/utils/clock/testing (Now, Since, SetTime, Step). Moving it
// wakes every scheduler started with it, so that timers due fire at once.
// It is safe for concurrent use.
type FakeClock struct {
	v  *clock.Virtual
	mu sync.Mutex
	// wake are the wake-up functions of the schedulers started with it
	wake []func()
}

// NewFakeClock returns a FakeClock set to t.
func NewFakeClock(t time.Time) *FakeClock { return &FakeClock{v: clock.NewVirtual(t)} }

// Now returns the fake time.
func (f *FakeClock) Now() time.Time { return f.v.Now() }

// Since returns the fake time elapsed since t.
func (f *FakeClock) Since(t time.Time) time.Duration { return f.v.Now().Sub(t) }

// SetTime moves the clock to t. Unlike k8s.io/utils/clock/testing's, it
// never moves backwards: a t before Now is ignored.
func (f *FakeClock) SetTime(t time.Time) {
	f.v.Set(t)
	f.wakeAll()
}

// Step moves the clock forward by d (a negative d is ignored).
func (f *FakeClock) Step(d time.Duration) {
	f.v.Advance(d)
	f.wakeAll()
}

func (f *FakeClock) onMove(wake func()) {
	f.mu.Lock()
	f.wake = append(f.wake, wake)
	f.mu.Unlock()
}

func (f *FakeClock) wakeAll() {
	f.mu.Lock()
	wake := f.wake
	f.mu.Unlock()
	for _, w := range wake {
		w()
	}
}

// forward is a Clock that never runs backwards: an embedder's clock may
// be set back (k8s.io/utils/clock/testing's SetTime allows it), but a
// timer must never fire twice nor an event predate the last.
type forward struct {
	c    Clock
	last atomic.Int64 // unix ns of the latest time returned
}

func (f *forward) Now() time.Time {
	t := f.c.Now()
	n := t.UnixNano()
	for {
		last := f.last.Load()
		if n <= last {
			return time.Unix(0, last).In(t.Location())
		}
		if f.last.CompareAndSwap(last, n) {
			return t
		}
	}
}
