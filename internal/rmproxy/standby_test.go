package rmproxy

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

// standbyInput sends rm1 three nodes, an application with four asks and
// an allocation the RM already has on n0 (a pod another replica bound).
func standbyInput(t *testing.T, s *Service) {
	t.Helper()
	var nodes []*si.NodeInfo
	for i := range 3 {
		nodes = append(nodes, &si.NodeInfo{NodeID: fmt.Sprint("n", i), Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)})
	}
	must(t, s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: nodes}))
	must(t, s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", PartitionName: "default", Ugi: &si.UserGroupInformation{User: "alice"}},
	}}))
	asks := []*si.Allocation{{AllocationKey: "bound", ApplicationID: "app1", PartitionName: "default", NodeID: "n0", ResourcePerAlloc: res(1000, 1<<30)}}
	for i := range 4 {
		asks = append(asks, &si.Allocation{AllocationKey: fmt.Sprint("ask", i), ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)})
	}
	must(t, s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks}))
}

// placed counts the allocations the scheduler placed: those it told the
// RM of, less its confirmation of the RM's own ("bound").
func placed(rec *recorder) int {
	n := 0
	for _, a := range rec.allocs {
		if a.AllocationKey != "bound" {
			n++
		}
	}
	return n
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// counts returns the pending asks and the allocations of app1.
func counts(t *testing.T, s *Service) (pending, allocated int) {
	t.Helper()
	must(t, s.Inspect(func(e *engine.Engine) {
		p, err := e.Partition("rm1", "default")
		if err != nil {
			t.Fatal(err)
		}
		a, ok := p.App("app1")
		if !ok {
			t.Fatal("app1 unknown")
		}
		pending, allocated = a.PendingCount(), a.AllocatedCount()
		if err := e.Verify(); err != nil {
			t.Error(err)
		}
	}))
	return pending, allocated
}

// A standby takes in nodes, applications, asks and the RM's allocations,
// answers only the node registrations, and decides nothing however often
// it cycles; activated, it first tells the RM what it held (the
// application accepted), then places the asks in the same cycle.
func TestStandbyTakesInputAndDecidesNothing(t *testing.T) {
	v := clock.NewVirtual(time.Unix(1000, 0))
	s := NewManual(v)
	s.Fence()
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	standbyInput(t, s)
	for range 5 {
		s.Cycle()
		v.Advance(time.Minute)
	}
	if len(rec.accNodes) != 3 {
		t.Errorf("standby answered %d node registrations, want 3", len(rec.accNodes))
	}
	if len(rec.allocs)+len(rec.accApps)+len(rec.updated)+len(rec.released)+len(rec.rejAlloc)+len(rec.events) != 0 {
		t.Fatalf("standby told the RM more than its nodes: %v, events %d", rec.order, len(rec.events))
	}
	if pending, allocated := counts(t, s); pending != 4 || allocated != 1 {
		t.Fatalf("standby holds %d asks and %d allocations, want 4 and 1", pending, allocated)
	}
	if !s.Standby() {
		t.Fatal("Standby() false after Fence")
	}

	must(t, s.Activate())
	if s.Standby() {
		t.Fatal("Standby() true after Activate")
	}
	s.Cycle()
	if n := placed(rec); n != 4 {
		t.Fatalf("the first cycle after activation placed %d asks, want 4", n)
	}
	if n := len(rec.allocs) - placed(rec); n != 1 {
		t.Fatalf("the RM's own allocation was confirmed %d times on activation, want once", n)
	}
	accepted := slices.Index(rec.order, "accepted app1")
	first := slices.IndexFunc(rec.order, func(o string) bool { return strings.HasPrefix(o, "alloc ") })
	if accepted < 0 || accepted > first {
		t.Fatalf("the RM heard %v: want the held acceptance before the first allocation", rec.order)
	}
	if pending, allocated := counts(t, s); pending != 0 || allocated != 5 {
		t.Fatalf("after activation %d asks pending and %d allocated, want 0 and 5", pending, allocated)
	}
}

// fencingRM fences its scheduler from inside the callback that tells it
// the application was accepted: the allocations of the same delivery
// must not follow.
type fencingRM struct {
	*recorder
	s *Service
}

func (f fencingRM) UpdateApplication(resp *si.ApplicationResponse) error {
	f.s.Fence()
	return f.recorder.UpdateApplication(resp)
}

// The gate is checked before each call of a delivery: a fence in the
// middle of one drops the rest, the service counts what it dropped, and
// it refuses to lead again, as its state holds decisions the RM never
// heard of.
func TestFenceStopsTheRestOfADelivery(t *testing.T) {
	v := clock.NewVirtual(time.Unix(1000, 0))
	s := NewManual(v)
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, fencingRM{rec, s}); err != nil {
		t.Fatal(err)
	}
	standbyInput(t, s)
	s.Cycle()
	if len(rec.accApps) != 1 {
		t.Fatalf("the RM heard of %d accepted applications, want 1", len(rec.accApps))
	}
	if len(rec.allocs) != 0 {
		t.Fatalf("%d allocations reached the RM after it fenced the scheduler", len(rec.allocs))
	}
	if s.FencedItems() < 4 {
		t.Errorf("FencedItems %d, want the 4 allocations at least", s.FencedItems())
	}
	if err := s.Activate(); !errors.Is(err, ErrDiverged) {
		t.Fatalf("Activate after a lossy fence: %v, want ErrDiverged", err)
	}
	if !s.Standby() {
		t.Fatal("a refused activation left the service leading")
	}
	s.Cycle()
	if len(rec.allocs) != 0 {
		t.Fatal("the fenced service delivered allocations later")
	}
}

// A fence that drops nothing leaves the service free to lead again.
func TestCleanFenceAllowsActivation(t *testing.T) {
	v := clock.NewVirtual(time.Unix(1000, 0))
	s := NewManual(v)
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	s.Cycle()
	s.Fence()
	standbyInput(t, s)
	s.Cycle()
	if len(rec.allocs) != 0 {
		t.Fatal("fenced service allocated")
	}
	must(t, s.Activate())
	must(t, s.Activate()) // a leader: nothing to do
	s.Cycle()
	if placed(rec) != 4 || s.FencedItems() != 0 {
		t.Fatalf("after a clean fence and activation: %d placed, %d fenced items; want 4 and 0", placed(rec), s.FencedItems())
	}
}

// With the service goroutine and couriers running: fenced from another
// goroutine, a leader goes on taking input (a node registered after the
// fence is answered) but places nothing; activated, it places what came
// in meanwhile without further input.
func TestFenceAndActivateWhileRunning(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	standbyInput(t, s)
	rec.await(t, "4 allocations, app1 running", func() bool {
		return placed(rec) == 4 && slices.ContainsFunc(rec.updated, func(u *si.UpdatedApplication) bool { return u.State == "Running" })
	})

	done := make(chan struct{})
	go func() { s.Fence(); close(done) }()
	<-done
	var asks []*si.Allocation
	for i := range 6 {
		asks = append(asks, &si.Allocation{AllocationKey: fmt.Sprint("late", i), ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(500, 1<<28)})
	}
	must(t, s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks}))
	must(t, s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n9", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)}}}))
	rec.await(t, "node n9 answered", func() bool { return slices.Contains(rec.accNodes, "n9") })
	// the asks were queued before the node: taken in by now
	if pending, _ := counts(t, s); pending != 6 {
		t.Fatalf("fenced leader holds %d asks, want 6", pending)
	}
	rec.mu.Lock()
	n := placed(rec)
	rec.mu.Unlock()
	if n != 4 {
		t.Fatalf("fenced leader delivered %d allocations, want the 4 from before the fence", n)
	}
	must(t, s.Activate())
	rec.await(t, "10 placed", func() bool { return placed(rec) == 10 })
	if s.FencedItems() != 0 {
		t.Errorf("FencedItems %d after a fence with nothing in flight", s.FencedItems())
	}
}

// predicateFencer fences its scheduler while asked about a node, as a
// lease lost during a pass would.
type predicateFencer struct {
	*recorder
	s     *Service
	calls int
}

func (f *predicateFencer) Predicates(a *si.PredicatesArgs) error {
	if f.calls++; f.calls == 2 {
		f.s.Fence()
	}
	return f.recorder.Predicates(a)
}

// A pass that runs across the fence places nothing after it, and what it
// placed before stays undelivered: the service counts itself diverged.
func TestFenceDuringAPass(t *testing.T) {
	v := clock.NewVirtual(time.Unix(1000, 0))
	s := NewManual(v)
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, &predicateFencer{recorder: rec, s: s}); err != nil {
		t.Fatal(err)
	}
	standbyInput(t, s)
	s.Cycle()
	if placed(rec) != 0 {
		t.Fatalf("%d allocations reached the RM after the fence", placed(rec))
	}
	if pending, allocated := counts(t, s); pending < 2 || allocated > 3 {
		t.Fatalf("the pass went on placing after the fence: %d pending, %d allocated", pending, allocated)
	}
	if err := s.Activate(); !errors.Is(err, ErrDiverged) {
		t.Fatalf("Activate after a pass across the fence: %v, want ErrDiverged", err)
	}
}

// A lease deadline that passes fences the service by itself: the next
// delivery drops its decisions, and the service stays a standby; one
// that lies ahead changes nothing.
func TestLeaseDeadlineFences(t *testing.T) {
	v := clock.NewVirtual(time.Unix(1000, 0))
	s := NewManual(v)
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	s.LeadUntil(time.Now().Add(time.Hour))
	standbyInput(t, s)
	s.Cycle()
	if placed(rec) != 4 || s.Standby() {
		t.Fatalf("within its lease the service placed %d (want 4), standby %v", placed(rec), s.Standby())
	}
	s.LeadUntil(time.Now().Add(-time.Millisecond))
	if !s.Standby() {
		t.Fatal("a lease deadline in the past left the service leading")
	}
	s.LeadUntil(time.Time{})
	if !s.Standby() {
		t.Fatal("removing the deadline after it passed made the service lead again")
	}
	must(t, s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "after", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)},
	}}))
	s.Cycle()
	if placed(rec) != 4 {
		t.Fatalf("the service placed %d after its lease ended, want the 4 from before", placed(rec))
	}
}
