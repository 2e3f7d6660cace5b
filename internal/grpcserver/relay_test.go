package grpcserver

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/client"
	"github.com/paddock-sched/paddock/internal/cbwire"
	"github.com/paddock-sched/paddock/internal/clock"
)

// relayRM answers relayed callbacks: it refuses node n0 and the plans on
// node n0, accepts the others with index 2, and records events and states.
type relayRM struct {
	callback.Nop
	mu     sync.Mutex
	preds  []string // nodes asked about
	events []*si.EventRecord
	states []*si.UpdateContainerSchedulingStateRequest
}

func (r *relayRM) Predicates(a *si.PredicatesArgs) error {
	r.mu.Lock()
	r.preds = append(r.preds, a.NodeID)
	r.mu.Unlock()
	if a.NodeID == "n0" {
		return errors.New("node n0 is tainted")
	}
	return nil
}

func (r *relayRM) PreemptionPredicates(a *si.PreemptionPredicatesArgs) *si.PreemptionPredicatesResponse {
	if a.NodeID == "n0" {
		return &si.PreemptionPredicatesResponse{Success: false}
	}
	return &si.PreemptionPredicatesResponse{Success: true, Index: 2}
}

func (r *relayRM) SendEvent(e []*si.EventRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e...)
}

func (r *relayRM) UpdateContainerSchedulingState(u *si.UpdateContainerSchedulingStateRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, u)
}

func dialClient(t *testing.T, h *harness, opts client.Options) *client.Client {
	t.Helper()
	c, err := client.Dial(ctx(t), h.addr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Every relayed callback reaches the RM that asked for it, and its answer
// reaches the scheduler.
func TestCallbacksRelayed(t *testing.T) {
	h := start(t, Options{CallbackTimeout: time.Minute}) // answers are expected, however loaded the machine
	rm := &relayRM{}
	c := dialClient(t, h, client.Options{Callbacks: client.AllCallbacks})
	if err := c.Register(ctx(t), &si.RegisterResourceManagerRequest{RmID: "rm1"}, rm); err != nil {
		t.Fatal(err)
	}
	st, _ := h.status("rm1")
	if !st.CallbacksOpen || strings.Join(st.Callbacks, ",") != "Predicates,PreemptionPredicates,SendEvent,UpdateContainerSchedulingState" {
		t.Fatalf("status %+v: want the four callbacks relayed", st)
	}
	cb := h.api.cb("rm1")
	if err := cb.Predicates(&si.PredicatesArgs{AllocationKey: "a1", NodeID: "n1", Allocate: true}); err != nil {
		t.Errorf("predicates on n1: %v, want allowed", err)
	}
	err := cb.Predicates(&si.PredicatesArgs{AllocationKey: "a1", NodeID: "n0", Allocate: true})
	if err == nil || err.Error() != "node n0 is tainted" {
		t.Errorf("predicates on n0: %v, want the RM's refusal", err)
	}
	if r := cb.PreemptionPredicates(&si.PreemptionPredicatesArgs{AllocationKey: "a1", NodeID: "n0", PreemptAllocationKeys: []string{"v1"}}); r == nil || r.Success {
		t.Errorf("preemption predicates on n0: %+v, want refused", r)
	}
	if r := cb.PreemptionPredicates(&si.PreemptionPredicatesArgs{AllocationKey: "a1", NodeID: "n1", PreemptAllocationKeys: []string{"v1", "v2", "v3"}}); r == nil || !r.Success || r.Index != 2 {
		t.Errorf("preemption predicates on n1: %+v, want success at index 2", r)
	}
	cb.SendEvent([]*si.EventRecord{{Type: si.EventRecord_APP, ObjectID: "app1", Message: "hello"}})
	cb.UpdateContainerSchedulingState(&si.UpdateContainerSchedulingStateRequest{ApplicationID: "app1", AllocationKey: "a1", State: si.UpdateContainerSchedulingStateRequest_FAILED})
	eventually(t, func() bool {
		rm.mu.Lock()
		defer rm.mu.Unlock()
		return len(rm.events) == 1 && len(rm.states) == 1
	}, "the event and the scheduling state at the RM")
	rm.mu.Lock()
	if rm.events[0].Message != "hello" || rm.states[0].State != si.UpdateContainerSchedulingStateRequest_FAILED {
		t.Errorf("received %+v and %+v", rm.events[0], rm.states[0])
	}
	if strings.Join(rm.preds, ",") != "n1,n0" {
		t.Errorf("predicates asked for %q, want n1,n0", rm.preds)
	}
	rm.mu.Unlock()
	if st, _ := h.status("rm1"); st.DroppedEvents != 0 || st.Unanswered != 0 {
		t.Errorf("status %+v: want nothing dropped or unanswered", st)
	}
}

// An RM that does not open the Callbacks stream sees exactly the plain SI
// behaviour: every node and plan allowed, events counted and dropped.
func TestCallbacksNotAsked(t *testing.T) {
	h := start(t, Options{})
	rm := &relayRM{}
	c := dialClient(t, h, client.Options{})
	if err := c.Register(ctx(t), &si.RegisterResourceManagerRequest{RmID: "rm1"}, rm); err != nil {
		t.Fatal(err)
	}
	cb := h.api.cb("rm1")
	if err := cb.Predicates(&si.PredicatesArgs{NodeID: "n0"}); err != nil {
		t.Errorf("predicates: %v, want allowed", err)
	}
	if r := cb.PreemptionPredicates(&si.PreemptionPredicatesArgs{NodeID: "n0"}); !r.Success {
		t.Errorf("preemption predicates: %+v, want success", r)
	}
	cb.SendEvent([]*si.EventRecord{{}, {}})
	cb.UpdateContainerSchedulingState(&si.UpdateContainerSchedulingStateRequest{})
	st, _ := h.status("rm1")
	if st.DroppedEvents != 3 || len(st.Callbacks) != 0 || st.CallbacksOpen {
		t.Errorf("status %+v: want 3 dropped and no callbacks", st)
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if len(rm.preds) != 0 || len(rm.events) != 0 || len(rm.states) != 0 {
		t.Errorf("the RM was called: %q %v %v", rm.preds, rm.events, rm.states)
	}
}

// hungRM never answers Predicates.
type hungRM struct {
	callback.Nop
	mu    sync.Mutex
	calls int
	block chan struct{}
}

func (r *hungRM) Predicates(*si.PredicatesArgs) error {
	r.mu.Lock()
	r.calls++
	r.mu.Unlock()
	<-r.block
	return nil
}

// A call that gets no answer in time refuses the node; later calls are
// refused at once, without a round trip, until the backoff has passed;
// a closed stream refuses too (the RM asked for Predicates, so its nodes
// are never silently allowed).
func TestCallbackTimeout(t *testing.T) {
	clk := clock.NewVirtual(time.Unix(1000, 0))
	h := start(t, Options{Clock: clk, CallbackTimeout: 50 * time.Millisecond, CallbackBackoff: time.Hour})
	rm := &hungRM{block: make(chan struct{})}
	t.Cleanup(func() { close(rm.block) })
	c := dialClient(t, h, client.Options{Callbacks: client.Predicates})
	if err := c.Register(ctx(t), &si.RegisterResourceManagerRequest{RmID: "rm1"}, rm); err != nil {
		t.Fatal(err)
	}
	cb := h.api.cb("rm1")
	asked := func(wantCalls int, wantUnanswered int64) {
		t.Helper()
		rm.mu.Lock()
		calls := rm.calls
		rm.mu.Unlock()
		st, _ := h.status("rm1")
		if calls != wantCalls || st.Unanswered != wantUnanswered {
			t.Fatalf("RM asked %d times, %d unanswered: want %d and %d", calls, st.Unanswered, wantCalls, wantUnanswered)
		}
	}
	for i := range 3 {
		if err := cb.Predicates(&si.PredicatesArgs{AllocationKey: "a1", NodeID: "n1"}); err == nil {
			t.Fatalf("call %d allowed without an answer", i)
		}
	}
	eventually(t, func() bool { rm.mu.Lock(); defer rm.mu.Unlock(); return rm.calls == 1 }, "the first call at the RM")
	asked(1, 3)
	clk.Advance(time.Hour) // the backoff is over: the RM is asked again
	if err := cb.Predicates(&si.PredicatesArgs{AllocationKey: "a1", NodeID: "n1"}); err == nil {
		t.Fatal("allowed without an answer")
	}
	eventually(t, func() bool { rm.mu.Lock(); defer rm.mu.Unlock(); return rm.calls == 2 }, "the second call at the RM")
	asked(2, 4)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cb.Predicates(&si.PredicatesArgs{NodeID: "n1"}); err == nil {
		t.Fatal("allowed after the RM closed its Callbacks stream")
	}
}

// The in-flight bound: a relay refuses calls beyond it.
func TestRelayInFlightBound(t *testing.T) {
	r := &relay{sess: &session{}, waiting: map[uint64]chan *cbwire.Reply{}, notify: make(chan struct{}, 1), end: make(chan struct{})}
	id, ch, err := r.call(&cbwire.Request{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.call(&cbwire.Request{}, 1); !errors.Is(err, errBusy) {
		t.Fatalf("second call: %v, want errBusy", err)
	}
	r.answer(&cbwire.Reply{ID: id})
	if rep := <-ch; rep.ID != id {
		t.Fatalf("reply %d, want %d", rep.ID, id)
	}
	if _, _, err := r.call(&cbwire.Request{}, 1); err != nil {
		t.Fatalf("call after the answer: %v", err)
	}
}

// The Callbacks stream checks its first message.
func TestCallbacksBadHello(t *testing.T) {
	h := start(t, Options{})
	sc, conn := h.dial(t)
	h.register(t, sc, "rm1")
	for _, tc := range []struct {
		hello *cbwire.Reply
		want  string
	}{
		{&cbwire.Reply{Handles: []string{cbwire.Predicates}}, "must name the rmID"},
		{&cbwire.Reply{RmID: "rm1"}, "must list the callbacks"},
		{&cbwire.Reply{RmID: "rm1", Handles: []string{"Bogus"}}, `unknown callback "Bogus"`},
		{&cbwire.Reply{RmID: "nobody", Handles: []string{cbwire.SendEvent}}, "not registered"},
	} {
		st, err := conn.NewStream(ctx(t), &cbwire.StreamDesc, cbwire.FullMethod)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SendMsg(tc.hello.Message()); err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		err = st.RecvMsg(cbwire.NewRequestMessage())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("hello %+v: %v, want %q", tc.hello, err, tc.want)
		}
	}
}
