package rmproxy

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/google/go-cmp/cmp"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/resource"
)

func asks(n int, prefix string) *si.AllocationRequest {
	req := &si.AllocationRequest{RmID: "rm1"}
	for i := range n {
		req.Allocations = append(req.Allocations, &si.Allocation{AllocationKey: fmt.Sprint(prefix, i), ApplicationID: "app1", ResourcePerAlloc: res(1, 1)})
	}
	return req
}

// TestQueueIsBounded holds the service goroutine busy, fills the queue,
// and checks that a call beyond the limit waits and then fails with
// ErrBusy, that one waiting is admitted as soon as the goroutine takes the
// queue, and that a request larger than the limit still enters an empty
// queue.
func TestQueueIsBounded(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, newRecorder()); err != nil {
		t.Fatal(err)
	}
	s.SetQueueLimit(10, 100*time.Millisecond)

	// the service goroutine is busy until release is closed
	busy, release := make(chan struct{}), make(chan struct{})
	go s.Inspect(func(*engine.Engine) { close(busy); <-release })
	<-busy

	if err := s.UpdateAllocation(asks(6, "a")); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateAllocation(asks(4, "b")); err != nil {
		t.Fatalf("up to the limit: %v", err)
	}
	err := s.UpdateAllocation(asks(1, "c"))
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("beyond the limit: %v, want ErrBusy", err)
	}
	if st := s.QueueStats(); st.Items != 10 || st.Limit != 10 || st.Waits != 1 || st.Refused != 1 {
		t.Errorf("stats %+v, want 10 items of 10, 1 wait, 1 refused", st)
	}
	s.SetQueueLimit(10, time.Minute)
	waited := make(chan error, 1)
	go func() {
		waited <- s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 1<<30)}}})
	}()
	for deadline := time.Now().Add(10 * time.Second); s.QueueStats().Waits < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call beyond the limit does not wait")
		}
	}
	close(release)
	if err := <-waited; err != nil {
		t.Fatalf("a waiting call after the queue was taken: %v", err)
	}
	if st := s.QueueStats(); st.Waits != 2 || st.Refused != 1 {
		t.Errorf("stats %+v, want 2 waits, 1 refused", st)
	}
	// a request larger than the whole limit enters an empty queue
	if err := s.Inspect(func(*engine.Engine) {}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateAllocation(asks(25, "d")); err != nil {
		t.Fatalf("a large request into an empty queue: %v", err)
	}
}

// Requests of several RMs taken from the inbox at once are applied in
// turn, each RM's in its own order; a synchronous call keeps its place.
func TestInterleave(t *testing.T) {
	var got []string
	req := func(rmID, name string) request {
		return request{rmID: rmID, apply: func(time.Time) { got = append(got, name) }}
	}
	run := func(work []request) []string {
		got = nil
		for _, r := range interleave(work) {
			r.apply(time.Time{})
		}
		return got
	}
	for _, c := range []struct {
		name string
		work []request
		want []string
	}{
		{"one RM keeps its order", []request{req("a", "a1"), req("a", "a2"), req("", "call"), req("a", "a3")},
			[]string{"a1", "a2", "call", "a3"}},
		{"a flood and a late request", []request{req("a", "a1"), req("a", "a2"), req("a", "a3"), req("a", "a4"), req("b", "b1")},
			[]string{"a1", "b1", "a2", "a3", "a4"}},
		{"three RMs in turn", []request{req("a", "a1"), req("a", "a2"), req("b", "b1"), req("b", "b2"), req("c", "c1"), req("a", "a3")},
			[]string{"a1", "b1", "c1", "a2", "b2", "a3"}},
		{"a synchronous call is a barrier", []request{req("a", "a1"), req("a", "a2"), req("", "call"), req("b", "b1"), req("a", "a3"), req("b", "b2")},
			[]string{"a1", "a2", "call", "b1", "a3", "b2"}},
		{"calls only", []request{req("", "c1"), req("", "c2")}, []string{"c1", "c2"}},
		{"empty", nil, nil},
	} {
		if d := cmp.Diff(c.want, run(c.work)); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// A request of one RM queued behind another RM's many is applied after
// the first of them, not after all: the event history (in the order the
// service goroutine makes its records) shows b's application accepted
// before the most of a's.
func TestFloodDoesNotQueueAheadOfAnotherRM(t *testing.T) {
	s, release, added := appOrder(t)
	newApp := func(rmID, id string) {
		if err := s.UpdateApplication(&si.ApplicationRequest{RmID: rmID, New: []*si.AddApplicationRequest{
			{ApplicationID: id, QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "u"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		newApp("a", fmt.Sprint("a", i))
	}
	newApp("b", "b0")
	close(release)
	_ = s.Inspect(func(*engine.Engine) {}) // everything before it is applied
	order := added()
	if len(order) != 11 {
		t.Fatalf("%d applications added: %v", len(order), order)
	}
	if pos := slices.Index(order, "b/b0"); pos != 1 {
		t.Errorf("b's application was added %d-th of 11, after a's 10 queued before it: %v", pos+1, order)
	}
}

// An RM with nothing queued gets a request in while another RM keeps the
// queue full; its next request, like the full RM's, waits for room.
func TestQuietRMGetsPastAFullQueue(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	for _, id := range []string{"rm1", "rm2"} {
		if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: id, Config: cfg}, newRecorder()); err != nil {
			t.Fatal(err)
		}
	}
	s.SetQueueLimit(10, 50*time.Millisecond)
	busy, release := make(chan struct{}), make(chan struct{})
	go s.Inspect(func(*engine.Engine) { close(busy); <-release })
	<-busy
	defer close(release)

	of := func(rmID string, n int, prefix string) *si.AllocationRequest {
		r := asks(n, prefix)
		r.RmID = rmID
		return r
	}
	if err := s.UpdateAllocation(of("rm1", 10, "a")); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateAllocation(of("rm1", 1, "b")); !errors.Is(err, ErrBusy) {
		t.Fatalf("rm1 past the limit: %v, want ErrBusy", err)
	}
	// while the goroutine is held, no room comes: only the rule lets it in
	if err := s.UpdateAllocation(of("rm2", 3, "c")); err != nil {
		t.Fatalf("rm2, with nothing queued, while rm1 fills the queue: %v", err)
	}
	if err := s.UpdateAllocation(of("rm2", 1, "d")); !errors.Is(err, ErrBusy) {
		t.Fatalf("rm2's second request past the limit: %v, want ErrBusy", err)
	}
	if st := s.QueueStats(); st.Items != 13 || st.Refused != 2 {
		t.Errorf("stats %+v, want 13 items queued (one request past the limit), 2 refused", st)
	}
}

// While the goroutine works through one RM's flood, a request of another
// RM that comes meanwhile is taken in the next round (TakeItems), not
// after the whole flood queued before it.
func TestRequestDuringAFloodWaitsARound(t *testing.T) {
	s, release, added := appOrder(t)
	const per = 1000
	requests := 2*TakeItems/per + 8 // rounds, within the queue's limit
	for i := range requests {
		req := &si.ApplicationRequest{RmID: "a"}
		for j := range per {
			req.New = append(req.New, &si.AddApplicationRequest{ApplicationID: fmt.Sprint("a", i*per+j), QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "u"}})
		}
		if err := s.UpdateApplication(req); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	// b sends once the goroutine is applying a's flood
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Microsecond) {
		if len(added()) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a's flood not applied")
		}
	}
	if err := s.UpdateApplication(&si.ApplicationRequest{RmID: "b", New: []*si.AddApplicationRequest{
		{ApplicationID: "b0", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "u"}}}}); err != nil {
		t.Fatal(err)
	}
	_ = s.Inspect(func(*engine.Engine) {})
	order := added()
	if len(order) != requests*per+1 {
		t.Fatalf("%d applications added, want %d", len(order), requests*per+1)
	}
	if pos := slices.Index(order, "b/b0"); pos > requests*per/2 {
		t.Errorf("b's application was added %d-th of %d: it waited for a's flood", pos+1, len(order))
	} else {
		t.Logf("b's application added %d-th of %d", pos+1, len(order))
	}
}

// appOrder is a service with RMs a and b registered whose goroutine is
// held busy until release is closed; added lists the applications added,
// as "rm/app", in the order the goroutine added them (its event records).
func appOrder(t *testing.T) (s *Service, release chan struct{}, added func() []string) {
	t.Helper()
	s = New(clock.Real{})
	t.Cleanup(s.Stop)
	var mu sync.Mutex
	var order []string
	s.SetHooks(Hooks{Event: func(rmID string, _ *resource.Registry, r *event.Record) {
		if r.Type == event.App && r.Change == event.Add && r.Detail == event.AppNew {
			mu.Lock()
			order = append(order, rmID+"/"+r.ObjectID)
			mu.Unlock()
		}
	}})
	for _, id := range []string{"a", "b"} {
		if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: id, Config: cfg}, newRecorder()); err != nil {
			t.Fatal(err)
		}
	}
	busy := make(chan struct{})
	release = make(chan struct{})
	go s.Inspect(func(*engine.Engine) { close(busy); <-release })
	<-busy
	t.Cleanup(func() { // before Stop, should the test end holding it
		select {
		case <-release:
		default:
			close(release)
		}
	})
	return s, release, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(order)
	}
}
