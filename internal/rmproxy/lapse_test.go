package rmproxy

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

// predicateLapser lets its scheduler's lease deadline pass while it is
// asked about a node, as a renewal that comes late does under a loaded
// API server.
type predicateLapser struct {
	*recorder
	s     *Service
	calls int
}

func (f *predicateLapser) Predicates(a *si.PredicatesArgs) error {
	if f.calls++; f.calls == 2 {
		f.s.LeadUntil(time.Now().Add(-time.Millisecond))
	}
	return f.recorder.Predicates(a)
}

// lapsedLeader is a leader whose lease deadline passed during its first
// pass: it placed some of the asks of standbyInput and holds one
// placement undelivered.
func lapsedLeader(t *testing.T) (*Service, *recorder) {
	t.Helper()
	s := NewManual(clock.NewVirtual(time.Unix(1000, 0)))
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, &predicateLapser{recorder: rec, s: s}); err != nil {
		t.Fatal(err)
	}
	s.LeadUntil(time.Now().Add(time.Hour))
	standbyInput(t, s)
	s.Cycle()
	if !s.Standby() {
		t.Fatal("a leader whose lease deadline passed still leads")
	}
	pending, allocated := counts(t, s)
	if pending < 2 || allocated-1 <= placed(rec) {
		t.Fatalf("the pass across the deadline: %d pending, %d allocated, %d delivered; want asks left and a placement held",
			pending, allocated, placed(rec))
	}
	return s, rec
}

// A lease deadline that passes pauses the leader; the renewal that comes
// after it (a later deadline) resumes it: what the pass placed before the
// deadline is delivered then, once, and the asks the pass left are placed
// without further input. A late renewal proves that no other replica took
// the lease meanwhile, so the leader must not stay fenced while it keeps
// holding the lease (it would hold it and decide nothing).
func TestLeaseLapseResumesOnRenewal(t *testing.T) {
	s, rec := lapsedLeader(t)
	s.Cycle()
	if s.FencedItems() != 0 {
		t.Fatalf("a lapse dropped %d items", s.FencedItems())
	}
	s.LeadUntil(time.Now().Add(time.Hour))
	if s.Standby() {
		t.Fatal("a renewal after the deadline passed left the leader fenced")
	}
	s.Cycle()
	if pending, allocated := counts(t, s); pending != 0 || allocated != 5 {
		t.Fatalf("after the renewal %d asks pending and %d allocated, want 0 and 5", pending, allocated)
	}
	var keys []string
	for _, a := range rec.allocs {
		keys = append(keys, a.AllocationKey)
	}
	slices.Sort(keys)
	if want := []string{"ask0", "ask1", "ask2", "ask3", "bound"}; !slices.Equal(keys, want) {
		t.Fatalf("the RM heard of %v, want each of %v once", keys, want)
	}
	must(t, s.Activate()) // a leader: nothing to do, and not diverged
}

// A lapse that ends in a fence (the lease lost) leaves the placement it
// held undelivered for good: the service is diverged and refuses to lead
// again, and a renewal cannot reopen it either.
func TestLeaseLapseThenFenceDiverges(t *testing.T) {
	s, rec := lapsedLeader(t)
	before := placed(rec)
	s.Fence()
	s.Cycle()
	if err := s.Activate(); !errors.Is(err, ErrDiverged) {
		t.Fatalf("Activate after a lapse and a fence with a placement held: %v, want ErrDiverged", err)
	}
	s.LeadUntil(time.Now().Add(time.Hour))
	s.Cycle()
	if !s.Standby() || placed(rec) != before {
		t.Fatalf("a diverged service led again: standby %v, %d placed (want %d)", s.Standby(), placed(rec), before)
	}
	if !s.Diverged() {
		t.Fatal("Diverged() false")
	}
}

// Removing the bound while the deadline has passed does not resume the
// leader: only a renewal (a deadline in the future) does.
func TestLeaseLapseNotResumedByRemovingTheBound(t *testing.T) {
	s, rec := lapsedLeader(t)
	before := placed(rec)
	s.LeadUntil(time.Now().Add(-time.Second))
	s.LeadUntil(time.Time{})
	s.Cycle()
	if !s.Standby() || placed(rec) != before {
		t.Fatalf("removing the bound resumed the leader: standby %v, %d placed (want %d)", s.Standby(), placed(rec), before)
	}
}

// A pass that meets the lease deadline stops asking at once and leaves the
// asks it did not place as they were: the RM being unavailable is not a
// refusal (partition.ErrRMUnavailable), so no ask is found unfit.
func TestLeaseLapseLeavesAsksAlone(t *testing.T) {
	s, _ := lapsedLeader(t)
	must(t, s.Inspect(func(e *engine.Engine) {
		p, err := e.Partition("rm1", "default")
		if err != nil {
			t.Fatal(err)
		}
		if p.Stats.RMAway == 0 {
			t.Error("the pass across the deadline did not end as one that cannot ask the RM")
		}
		a, _ := p.App("app1")
		a.Each(func(x *app.Allocation) bool {
			if x.Pending() && a.Why(x).Kind != app.NotTried {
				t.Errorf("ask %s left with reason %v by the pass across the deadline", x.Key, a.Why(x))
			}
			return true
		})
	}))
}
