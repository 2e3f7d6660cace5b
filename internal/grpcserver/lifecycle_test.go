package grpcserver

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// openAll opens the three streams of rmID and greets on each; the returned
// functions cancel them one by one (allocation, application, node).
func openAll(t testing.TB, c si.SchedulerClient, rmID string) (
	alloc interface {
		Recv() (*si.AllocationResponse, error)
	},
	app interface {
		Recv() (*si.ApplicationResponse, error)
	},
	node interface {
		Recv() (*si.NodeResponse, error)
	},
	cancel [3]context.CancelFunc,
) {
	t.Helper()
	var cx [3]context.Context
	for i := range cx {
		cx[i], cancel[i] = context.WithCancel(ctx(t))
		t.Cleanup(cancel[i])
	}
	a, err := c.UpdateAllocation(cx[0])
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.UpdateApplication(cx[1])
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.UpdateNode(cx[2])
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(a.Send(&si.AllocationRequest{RmID: rmID}), p.Send(&si.ApplicationRequest{RmID: rmID}), n.Send(&si.NodeRequest{RmID: rmID})); err != nil {
		t.Fatal(err)
	}
	return a, p, n, cancel
}

func TestResponsesBufferedUntilStreamOpens(t *testing.T) {
	h := start(t, Options{})
	c, _ := h.dial(t)
	h.register(t, c, "rm1")
	cb := h.api.cb("rm1")
	for _, id := range []string{"app1", "app2"} {
		if err := cb.UpdateApplication(&si.ApplicationResponse{Accepted: []*si.AcceptedApplication{{ApplicationID: id}}}); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := h.status("rm1"); st.Buffered != 2 || st.State != RMRunning {
		t.Fatalf("before the stream opens: %+v, want Running with 2 buffered", st)
	}
	_, app, _, _ := openAll(t, c, "rm1")
	for _, want := range []string{"app1", "app2"} {
		resp, err := app.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Accepted[0].ApplicationID; got != want {
			t.Fatalf("flushed %s, want %s (in order)", got, want)
		}
	}
	st := h.awaitState(t, "rm1", RMRunning, 3)
	if st.Buffered != 0 {
		t.Errorf("%d responses still buffered after the flush", st.Buffered)
	}
	h.api.mu.Lock()
	defer h.api.mu.Unlock()
	if len(h.api.apps)+len(h.api.nodes)+len(h.api.allocs) != 0 {
		t.Errorf("greetings were forwarded to the scheduler")
	}
}

func TestBufferOverflowStopsRM(t *testing.T) {
	h := start(t, Options{BufferLimit: 2})
	c, _ := h.dial(t)
	h.register(t, c, "rm1")
	cb := h.api.cb("rm1")
	for i := range 3 {
		err := cb.UpdateNode(&si.NodeResponse{Accepted: []*si.AcceptedNode{{NodeID: "n"}}})
		if (err != nil) != (i == 2) {
			t.Fatalf("push %d: %v", i, err)
		}
	}
	st, _ := h.status("rm1")
	if st.State != RMStopped || st.Buffered != 0 || !strings.Contains(st.Reason, "register again") {
		t.Fatalf("after overflow: %+v, want Stopped, nothing buffered, a reason", st)
	}
	node, _ := nodeStream(t, c, &si.NodeRequest{RmID: "rm1"})
	_, err := node.Recv()
	wantCode(t, "stream of a stopped RM", err, codes.FailedPrecondition)

	h.register(t, c, "rm1")
	if st, _ := h.status("rm1"); st.State != RMRunning || st.Buffered != 0 {
		t.Fatalf("after re-registration: %+v", st)
	}
}

func TestPauseResumeAndStop(t *testing.T) {
	h := start(t, Options{})
	c, _ := h.dial(t)
	h.register(t, c, "rm1")
	_, _, _, cancel := openAll(t, c, "rm1")
	h.awaitState(t, "rm1", RMRunning, 3)
	if n := len(h.timers.active()); n != 0 {
		t.Fatalf("%d timers running for a connected RM", n)
	}

	// losing one stream pauses the RM; its responses wait
	cancel[2]()
	h.awaitState(t, "rm1", RMPaused, 2)
	if got := h.timers.active(); !slices.Equal(got, []time.Duration{DefaultReconnectTimeout}) {
		t.Fatalf("reconnect timers %v, want one of %s", got, DefaultReconnectTimeout)
	}
	cb := h.api.cb("rm1")
	if err := cb.UpdateNode(&si.NodeResponse{Accepted: []*si.AcceptedNode{{NodeID: "n1"}}}); err != nil {
		t.Fatal(err)
	}

	// reopening it resumes the RM and delivers what waited
	node, cancelNode := nodeStream(t, c, &si.NodeRequest{RmID: "rm1"})
	resp, err := node.Recv()
	if err != nil || resp.Accepted[0].NodeID != "n1" {
		t.Fatalf("buffered node response: %v, %v", resp, err)
	}
	h.awaitState(t, "rm1", RMRunning, 3)
	if n := len(h.timers.active()); n != 0 {
		t.Fatalf("reconnect timer still running after resume")
	}

	// losing everything and not coming back stops it
	cancel[0]()
	cancel[1]()
	cancelNode()
	h.awaitState(t, "rm1", RMPaused, 0)
	if n := h.timers.fire(); n != 1 {
		t.Fatalf("fired %d timers, want 1", n)
	}
	st, _ := h.status("rm1")
	if st.State != RMStopped || !strings.Contains(st.Reason, "not reopened within 1m0s") {
		t.Fatalf("after the timeout: %+v", st)
	}
	if err := cb.UpdateNode(&si.NodeResponse{}); err == nil {
		t.Error("a stopped RM accepted a response")
	}
	again, _ := nodeStream(t, c, &si.NodeRequest{RmID: "rm1"})
	_, err = again.Recv()
	wantCode(t, "stream of a stopped RM", err, codes.FailedPrecondition)

	// registering again revives it
	h.register(t, c, "rm1")
	openAll(t, c, "rm1")
	h.awaitState(t, "rm1", RMRunning, 3)
}

func TestReRegistrationAbortsOldStreams(t *testing.T) {
	h := start(t, Options{})
	c, _ := h.dial(t)
	h.register(t, c, "rm1")
	old, _ := nodeStream(t, c, &si.NodeRequest{RmID: "rm1"})
	h.awaitState(t, "rm1", RMRunning, 1)
	oldCB := h.api.cb("rm1")

	h.register(t, c, "rm1")
	_, err := old.Recv()
	wantCode(t, "stream of the old registration", err, codes.Aborted)
	st := h.awaitState(t, "rm1", RMRunning, 0)
	if len(h.timers.active()) != 0 {
		t.Errorf("re-registration paused the RM: %+v", st)
	}
	if err := oldCB.UpdateNode(&si.NodeResponse{}); err == nil {
		t.Error("the old registration's callback still accepts responses")
	}
	fresh, _ := nodeStream(t, c, &si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n1"}}})
	if err := h.api.cb("rm1").UpdateNode(&si.NodeResponse{Accepted: []*si.AcceptedNode{{NodeID: "n1"}}}); err != nil {
		t.Fatal(err)
	}
	if resp, err := fresh.Recv(); err != nil || resp.Accepted[0].NodeID != "n1" {
		t.Fatalf("new stream: %v, %v", resp, err)
	}
}

func TestNewerStreamReplacesOlder(t *testing.T) {
	h := start(t, Options{})
	c, _ := h.dial(t)
	h.register(t, c, "rm1")
	first, _ := nodeStream(t, c, &si.NodeRequest{RmID: "rm1"})
	h.awaitState(t, "rm1", RMRunning, 1)
	second, _ := nodeStream(t, c, &si.NodeRequest{RmID: "rm1"})
	_, err := first.Recv()
	wantCode(t, "replaced stream", err, codes.Aborted)
	h.awaitState(t, "rm1", RMRunning, 1)
	if len(h.timers.active()) != 0 {
		t.Error("replacing a stream paused the RM")
	}
	if err := h.api.cb("rm1").UpdateNode(&si.NodeResponse{Accepted: []*si.AcceptedNode{{NodeID: "n2"}}}); err != nil {
		t.Fatal(err)
	}
	if resp, err := second.Recv(); err != nil || resp.Accepted[0].NodeID != "n2" {
		t.Fatalf("newer stream: %v, %v", resp, err)
	}
}

func TestCleanCloseShutsDown(t *testing.T) {
	h := start(t, Options{})
	c, _ := h.dial(t)
	h.register(t, c, "rm1")
	a, err := c.UpdateAllocation(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.UpdateNode(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(a.Send(&si.AllocationRequest{RmID: "rm1"}), n.Send(&si.NodeRequest{RmID: "rm1"})); err != nil {
		t.Fatal(err)
	}
	h.awaitState(t, "rm1", RMRunning, 2)
	if err := a.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Recv(); !errors.Is(err, io.EOF) {
		t.Fatalf("allocation stream: %v, want a clean end", err)
	}
	// one stream closed on purpose is no connection loss
	h.awaitState(t, "rm1", RMRunning, 1)
	if len(h.timers.active()) != 0 {
		t.Error("closing a stream cleanly started a reconnect timer")
	}
	if err := n.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Recv(); !errors.Is(err, io.EOF) {
		t.Fatalf("node stream: %v, want a clean end", err)
	}
	st := h.awaitState(t, "rm1", RMStopped, 0)
	if !strings.Contains(st.Reason, "closed its streams") {
		t.Errorf("reason %q", st.Reason)
	}
	if len(h.timers.active()) != 0 {
		t.Error("a shut down RM has a reconnect timer")
	}
}

func TestRemoteCallbackAnswersPluginCalls(t *testing.T) {
	h := start(t, Options{})
	c, _ := h.dial(t)
	h.register(t, c, "rm1")
	cb := h.api.cb("rm1")
	if err := cb.Predicates(&si.PredicatesArgs{AllocationKey: "k", NodeID: "n"}); err != nil {
		t.Errorf("Predicates = %v, want allow", err)
	}
	if r := cb.PreemptionPredicates(&si.PreemptionPredicatesArgs{AllocationKey: "k", NodeID: "n"}); r == nil || !r.Success {
		t.Errorf("PreemptionPredicates = %v, want success", r)
	}
	cb.SendEvent(make([]*si.EventRecord, 3))
	cb.UpdateContainerSchedulingState(&si.UpdateContainerSchedulingStateRequest{})
	if st, _ := h.status("rm1"); st.DroppedEvents != 4 {
		t.Errorf("dropped %d, want 4", st.DroppedEvents)
	}
}
