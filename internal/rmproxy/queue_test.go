package rmproxy

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/engine"
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
