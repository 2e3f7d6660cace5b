package rmproxy

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

// stuckRM is an RM whose UpdateAllocation blocks, the first time it hears
// of allocation key, until release is closed (the Kubernetes shim retries
// assuming a pod for minutes when its volumes do not bind).
type stuckRM struct {
	*recorder
	key     string
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func newStuckRM(key string) *stuckRM {
	return &stuckRM{recorder: newRecorder(), key: key, entered: make(chan struct{}), release: make(chan struct{})}
}

func (r *stuckRM) UpdateAllocation(resp *si.AllocationResponse) error {
	for _, a := range resp.New {
		if a.AllocationKey == r.key {
			r.once.Do(func() { close(r.entered) })
			<-r.release
		}
	}
	return r.recorder.UpdateAllocation(resp)
}

// registerWithNode registers RM id with one node of 10 cores and one application.
func registerWithNode(t *testing.T, s *Service, id string, cb *recorder, rm api.ResourceManagerCallback) {
	t.Helper()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: id, Config: cfg}, rm); err != nil {
		t.Fatal(err)
	}
	_ = s.UpdateNode(&si.NodeRequest{RmID: id, Nodes: []*si.NodeInfo{
		{NodeID: id + "-n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(10, 1<<30)},
	}})
	_ = s.UpdateApplication(&si.ApplicationRequest{RmID: id, New: []*si.AddApplicationRequest{
		{ApplicationID: "app", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
	}})
	cb.await(t, id+" node and application", func() bool { return len(cb.accNodes) == 1 && len(cb.accApps) == 1 })
}

// ask is RM rmID's request for one ask of its application "app".
func ask(rmID, key string) *si.AllocationRequest {
	return &si.AllocationRequest{RmID: rmID, Allocations: []*si.Allocation{{AllocationKey: key, ApplicationID: "app", ResourcePerAlloc: res(1, 1)}}}
}

// stall registers RM rmID with a stuckRM and one node, and sends the ask
// a1 its callback blocks on; it returns once the callback is blocked.
func stall(t *testing.T, s *Service, rmID string) *stuckRM {
	t.Helper()
	stuck := newStuckRM("a1")
	registerWithNode(t, s, rmID, stuck.recorder, stuck)
	_ = s.UpdateAllocation(ask(rmID, "a1"))
	<-stuck.entered
	return stuck
}

// An RM whose callback blocks holds up only its own deliveries: the
// service keeps taking requests in and scheduling for another RM. Once the
// callback has run for the stall time, the service stops placing the
// RM's asks (its node checks are not asked, as the RM has not heard of
// what was placed before), and it places them when the callback returns,
// in order.
func TestStalledCallbackHoldsOnlyItsRM(t *testing.T) {
	s, logged := loggedService(200 * time.Millisecond)
	defer s.Stop()

	stuck := stall(t, s, "rmA")
	other := newRecorder()
	registerWithNode(t, s, "rmB", other, other)

	// rmA goes on sending while its callback blocks: every call is taken
	// in (before, the service goroutine ran the callback and stopped)
	for i := 2; i <= 4; i++ {
		if err := s.UpdateAllocation(ask("rmA", fmt.Sprint("a", i))); err != nil {
			t.Fatalf("rmA's ask %d: %v", i, err)
		}
	}
	// and rmB is scheduled
	for i := 1; i <= 3; i++ {
		_ = s.UpdateAllocation(ask("rmB", fmt.Sprint("b", i)))
	}
	other.await(t, "rmB's allocations while rmA's callback blocks", func() bool { return len(other.allocs) == 3 })

	// past the stall time rmA's asks stay pending: nothing more is
	// decided for an RM that has not heard of what was decided before
	time.Sleep(3 * s.stallAfter)
	pending := 0
	_ = s.Inspect(func(e *engine.Engine) {
		p, err := e.Partition("rmA", "default")
		if err != nil {
			t.Error(err)
			return
		}
		if a, ok := p.App("app"); ok {
			pending = a.PendingCount()
			for i := 2; i <= 4; i++ {
				// asks that fit the node are not taken for asks that fit
				// no node while the RM cannot be asked about it
				if x, ok := a.Allocation(fmt.Sprint("a", i)); ok && a.Why(x).Kind == app.NoNodeFits {
					t.Errorf("a%d: NoNodeFits while rmA's callback stalls", i)
				}
			}
		}
	})
	if pending != 3 {
		t.Errorf("rmA has %d asks pending while its callback stalls, want 3", pending)
	}
	stuck.mu.Lock()
	if len(stuck.hints) > 0 {
		t.Errorf("asks that fit reported as waiting for cluster resources while rmA's callback stalls: %v", stuck.hints)
	}
	stuck.mu.Unlock()
	if logs := logged(); !strings.Contains(logs, "scheduling for it is paused") {
		t.Errorf("no warning of the stalled RM in the log:\n%s", logs)
	}

	// events of the stalled RM go on its notice lane, not behind the
	// decision that blocks: the RM hears them while it is stuck
	_ = s.UpdateApplication(&si.ApplicationRequest{RmID: "rmA", New: []*si.AddApplicationRequest{
		{ApplicationID: "app2", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
	}})
	stuck.await(t, "rmA's events of app2 while its callback blocks", func() bool {
		for _, e := range stuck.events {
			if e.ObjectID == "app2" {
				return true
			}
		}
		return false
	})

	close(stuck.release)
	stuck.await(t, "rmA's allocations after its callback returned", func() bool { return len(stuck.allocs) == 4 })
	for i, a := range stuck.allocs {
		if want := fmt.Sprint("a", i+1); a.AllocationKey != want {
			t.Errorf("rmA's allocation %d is %s, want %s", i, a.AllocationKey, want)
		}
	}
}

// Stop does not wait for ever for an RM whose callback never returns.
func TestStopLeavesStalledCallback(t *testing.T) {
	s := New(clock.Real{})
	s.stopWait = 100 * time.Millisecond
	stuck := stall(t, s, "rmA")
	defer close(stuck.release)
	done := make(chan struct{})
	go func() { s.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop waits for a callback that does not return")
	}
}

// loggedService is a service whose callbacks stall after stallAfter and
// whose log logged returns.
func loggedService(stallAfter time.Duration) (s *Service, logged func() string) {
	s = New(clock.Real{})
	s.stallAfter = stallAfter
	var logs strings.Builder
	var mu sync.Mutex
	s.SetHooks(Hooks{Logger: slog.New(slog.NewTextHandler(lockedWriter{&logs, &mu}, nil))})
	return s, func() string {
		mu.Lock()
		defer mu.Unlock()
		return logs.String()
	}
}

// lockedWriter serialises writes to a builder.
type lockedWriter struct {
	b  *strings.Builder
	mu *sync.Mutex
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// An RM that registers again while a callback of its last registration
// stalls starts afresh: its new callback hears of its new registration's
// nodes, applications and allocations at once, not after the stalled call.
func TestStalledRMRegistersAgain(t *testing.T) {
	s := New(clock.Real{})
	s.stallAfter = 100 * time.Millisecond
	s.stopWait = 100 * time.Millisecond
	defer s.Stop()
	stuck := stall(t, s, "rmA")
	defer close(stuck.release)
	paused := false
	for deadline := time.Now().Add(10 * time.Second); !paused && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		_ = s.Inspect(func(*engine.Engine) { paused = s.couriers["rmA"].paused.Load() })
	}
	if !paused {
		t.Fatal("rmA not paused while its callback blocks")
	}

	fresh := newRecorder()
	registerWithNode(t, s, "rmA", fresh, fresh)
	_ = s.UpdateAllocation(ask("rmA", "a2"))
	fresh.await(t, "the allocation of the new registration", func() bool { return len(fresh.allocs) == 1 })
	if got := fresh.allocs[0].AllocationKey; got != "a2" {
		t.Errorf("new registration got %s, want a2", got)
	}
}

// An RM whose callback stalls while its other goroutines keep sending
// has its requests refused with ErrBusy once the responses waiting for it
// pass the bound, instead of the scheduler holding them without limit;
// another RM is not refused, and the stalled RM's requests are taken
// again, and everything held delivered, once the callback returns.
func TestStalledRMRefusedPastMaxHeld(t *testing.T) {
	s, logged := loggedService(100 * time.Millisecond)
	s.maxHeld = 5
	defer s.Stop()
	stuck := stall(t, s, "rmA")
	other := newRecorder()
	registerWithNode(t, s, "rmB", other, other)

	newApp := func(rmID, id string) error {
		return s.UpdateApplication(&si.ApplicationRequest{RmID: rmID, New: []*si.AddApplicationRequest{
			{ApplicationID: id, QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
		}})
	}
	var refused error
	taken := 0 // applications of rmA taken in
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); taken++ {
		if refused = newApp("rmA", fmt.Sprint("app-", taken)); refused != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !errors.Is(refused, ErrBusy) || !strings.Contains(refused.Error(), "rmA has not returned from a callback") {
		t.Fatalf("after %d applications of the stalled RM: %v; want ErrBusy naming the stalled callback", taken, refused)
	}
	// each application taken in adds a response or two to what the
	// courier holds: the refusal starts past the bound, and not long after
	held := int64(0)
	_ = s.Inspect(func(*engine.Engine) { held = s.couriers["rmA"].held() })
	if held <= int64(s.maxHeld) || taken > 2*s.maxHeld+20 {
		t.Errorf("refused after %d applications with %d items held, the bound is %d", taken, held, s.maxHeld)
	}
	if err := newApp("rmB", "b-app"); err != nil {
		t.Errorf("another RM is refused: %v", err)
	}
	other.await(t, "rmB's application", func() bool { return len(other.accApps) == 2 })
	if logs := logged(); !strings.Contains(logs, "its requests are refused") {
		t.Errorf("no warning of the refusal in the log:\n%s", logs)
	}

	close(stuck.release)
	stuck.await(t, "the held responses after the callback returned", func() bool { return len(stuck.accApps) == taken+1 })
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if err = newApp("rmA", "after"); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("the RM's requests are still refused after its callback returned: %v", err)
	}
	stuck.await(t, "the application sent after the callback returned", func() bool { return len(stuck.accApps) == taken+2 })
}
