package scheduler

import (
	"testing"
	"time"
)

// settable is an embedder's clock that may be set back, as
// k8s.io/utils/clock/testing's may.
type settable struct{ t time.Time }

func (s *settable) Now() time.Time { return s.t }

// TestSchedulerTimeNeverRunsBack is issue 38 item 8: a clock of the
// embedder set back does not move the scheduler's time back (a timer would
// fire twice, an event predate the last).
func TestSchedulerTimeNeverRunsBack(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &settable{t: start}
	f := &forward{c: c}
	if got := f.Now(); !got.Equal(start) {
		t.Fatalf("Now %v, want %v", got, start)
	}
	c.t = start.Add(time.Hour)
	if got := f.Now(); !got.Equal(start.Add(time.Hour)) {
		t.Fatalf("Now %v after a step forward, want %v", got, start.Add(time.Hour))
	}
	c.t = start
	if got := f.Now(); !got.Equal(start.Add(time.Hour)) {
		t.Fatalf("Now %v after the clock was set back, want %v", got, start.Add(time.Hour))
	}
	fake := NewFakeClock(start)
	fake.Step(time.Minute)
	fake.SetTime(start)
	fake.Step(-time.Hour)
	if got, want := fake.Now(), start.Add(time.Minute); !got.Equal(want) || fake.Since(start) != time.Minute {
		t.Fatalf("FakeClock at %v (since start %v), want %v", got, fake.Since(start), want)
	}
	woken := 0
	fake.onMove(func() { woken++ })
	fake.Step(time.Second)
	fake.SetTime(start.Add(time.Hour))
	if woken != 2 {
		t.Errorf("moving the FakeClock woke its scheduler %d times, want 2", woken)
	}
}
