package rmproxy

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// slowHintRM is an RM whose UpdateContainerSchedulingState blocks until
// release is closed, as the Kubernetes shim's does while it writes the
// pod's status to an API server that is slow to answer.
type slowHintRM struct {
	*recorder
	hinted  chan string
	release chan struct{}
	mu      sync.Mutex
	hints   []string
}

func (r *slowHintRM) UpdateContainerSchedulingState(req *si.UpdateContainerSchedulingStateRequest) {
	r.mu.Lock()
	r.hints = append(r.hints, req.AllocationKey)
	r.mu.Unlock()
	r.hinted <- req.AllocationKey
	<-r.release
}

// TestSlowHintsNeverDelayDecisions checks that autoscaling hints go apart
// from decisions: while the RM's handling of a hint blocks for many times
// the stall time, its allocations are still delivered, and its scheduling
// is not paused for a stalled callback.
func TestSlowHintsNeverDelayDecisions(t *testing.T) {
	s, logged := loggedService(200 * time.Millisecond)
	defer s.Stop()
	rm := &slowHintRM{recorder: newRecorder(), hinted: make(chan string, 16), release: make(chan struct{})}
	defer close(rm.release)
	registerWithNode(t, s, "rm", rm.recorder, rm)

	// an ask no node can hold: reported as waiting, and its report blocks
	if err := s.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Allocations: []*si.Allocation{
		{AllocationKey: "huge", ApplicationID: "app", ResourcePerAlloc: res(100, 1)},
	}}); err != nil {
		t.Fatal(err)
	}
	select {
	case k := <-rm.hinted:
		if k != "huge" {
			t.Fatalf("hint for %s, want huge", k)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the ask that fits no node was not reported as waiting")
	}
	time.Sleep(3 * s.stallAfter) // the hint's call is now long past the stall time
	for i := range 5 {
		if err := s.UpdateAllocation(ask("rm", fmt.Sprint("small", i))); err != nil {
			t.Fatal(err)
		}
	}
	rm.await(t, "allocations while a hint's call blocks", func() bool { return len(rm.allocs) == 5 })
	if logs := logged(); strings.Contains(logs, "paused") {
		t.Errorf("scheduling was paused for a slow hint:\n%s", logs)
	}
}

// TestNoticeLaneBounded checks that the notice lane of an RM that does not
// return holds at most its bound, and counts what it drops.
func TestNoticeLaneBounded(t *testing.T) {
	l := newNoticeLane(10)
	block := make(chan struct{})
	rm := &slowHintRM{recorder: newRecorder(), hinted: make(chan string, 100), release: block}
	mk := func(n int) notice {
		w := make([]*si.UpdateContainerSchedulingStateRequest, n)
		for i := range w {
			w[i] = &si.UpdateContainerSchedulingStateRequest{AllocationKey: fmt.Sprint("k", i)}
		}
		return notice{cb: rm, waiting: w, events: []*si.EventRecord{{}, {}}}
	}
	if l.hand(mk(4)) {
		t.Fatal("dropped notices below the bound")
	}
	<-rm.hinted // the lane is in the first call, which blocks
	if !l.hand(mk(6)) {
		t.Fatal("nothing dropped past the bound")
	}
	l.mu.Lock()
	held, dropped := l.held, l.dropped
	l.mu.Unlock()
	if held != 10 {
		t.Errorf("holds %d notices, want the bound, 10", held)
	}
	if dropped.hints != 2 || dropped.events != 2 {
		t.Errorf("dropped %d hints and %d events, want 2 and 2", dropped.hints, dropped.events)
	}
	if !l.backlog() {
		t.Error("a full lane does not report a backlog")
	}
	l.retire()
	close(block)
	select {
	case <-l.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("a retired lane did not exit")
	}
}
