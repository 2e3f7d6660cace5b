package grpcserver_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/client"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/grpcserver"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// picky is a recorder whose Predicates refuse one node, counting the
// calls, and which keeps the events it receives.
type picky struct {
	*recorder
	refuse string
	block  chan struct{} // when set, Predicates never answer before it closes
	pmu    sync.Mutex
	asked  map[string]int // Predicates calls per node
	events []*si.EventRecord
}

func newPicky(refuse string) *picky {
	return &picky{recorder: newRecorder(), refuse: refuse, asked: map[string]int{}}
}

func (p *picky) Predicates(a *si.PredicatesArgs) error {
	p.pmu.Lock()
	p.asked[a.NodeID]++
	p.pmu.Unlock()
	if p.block != nil {
		<-p.block
	}
	if a.NodeID == p.refuse {
		return errors.New("node " + a.NodeID + " refused by the RM")
	}
	return nil
}

func (p *picky) SendEvent(e []*si.EventRecord) {
	p.pmu.Lock()
	p.events = append(p.events, e...)
	p.pmu.Unlock()
	p.poke()
}

func registerAs(t *testing.T, c *client.Client, rmID string, cb *picky) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Register(ctx, &si.RegisterResourceManagerRequest{RmID: rmID, Version: "test", Config: cfg}, cb); err != nil {
		t.Fatal(err)
	}
}

// one node, one application, n asks of 1000 vcore for rmID.
func populate(t *testing.T, c *client.Client, rmID string, nodeIDs []string, asks int) {
	t.Helper()
	nr := &si.NodeRequest{RmID: rmID}
	for _, id := range nodeIDs {
		nr.Nodes = append(nr.Nodes, &si.NodeInfo{NodeID: id, Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)})
	}
	must(t, c.UpdateNode(nr))
	a := app("app1", "root.a")
	a.RmID = rmID
	must(t, c.UpdateApplication(a))
	ar := &si.AllocationRequest{RmID: rmID}
	for i := range asks {
		ar.Allocations = append(ar.Allocations, &si.Allocation{AllocationKey: fmt.Sprint("ask", i), ApplicationID: "app1", ResourcePerAlloc: res(1000, 1<<30)})
	}
	must(t, c.UpdateAllocation(ar))
}

// A gRPC RM's Predicates refusing a node keeps its asks off that node.
func TestPredicatesOverGRPC(t *testing.T) {
	_, srv, addr := stack(t, grpcserver.Options{CallbackTimeout: time.Minute}) // answers are expected, however loaded the machine
	c := dial(t, addr, client.Options{Callbacks: client.Predicates})
	rm := newPicky("n0")
	registerAs(t, c, "rm1", rm)
	populate(t, c, "rm1", []string{"n0", "n1"}, 6)
	rm.await(t, "4 allocations", func() bool { return len(rm.allocs) >= 4 })
	rm.mu.Lock()
	for k, a := range rm.allocs {
		if a.NodeID != "n1" {
			t.Errorf("%s allocated on %s, which the RM's Predicates refuse", k, a.NodeID)
		}
	}
	rm.mu.Unlock()
	rm.pmu.Lock()
	defer rm.pmu.Unlock()
	if rm.asked["n0"] == 0 || rm.asked["n1"] == 0 {
		t.Errorf("Predicates asked %v: want both nodes", rm.asked)
	}
	if st := rmState(srv); st.Unanswered != 0 || !st.CallbacksOpen {
		t.Errorf("status %+v: want the stream open and every call answered", st)
	}
}

// The scheduler's events reach a gRPC RM that asked for them.
func TestEventsOverGRPC(t *testing.T) {
	_, srv, addr := stack(t, grpcserver.Options{})
	c := dial(t, addr, client.Options{Callbacks: client.SendEvent | client.UpdateContainerSchedulingState})
	rm := newPicky("")
	registerAs(t, c, "rm1", rm)
	populate(t, c, "rm1", []string{"n0"}, 1)
	rm.await(t, "an event of app1", func() bool {
		rm.pmu.Lock()
		defer rm.pmu.Unlock()
		for _, e := range rm.events {
			if e.Type == si.EventRecord_APP && e.ObjectID == "app1" {
				return true
			}
		}
		return false
	})
	if st := rmState(srv); st.DroppedEvents != 0 {
		t.Errorf("%d events dropped", st.DroppedEvents)
	}
}

// An RM whose Predicates hang costs the scheduler one timeout: another RM
// on the same scheduler is served, and the hung RM is not asked again
// during the backoff (its asks wait, refused without a round trip).
func TestHungRMDoesNotBlockAnother(t *testing.T) {
	_, srv, addr := stack(t, grpcserver.Options{CallbackTimeout: 100 * time.Millisecond, CallbackBackoff: time.Hour})
	hung := newPicky("")
	hung.block = make(chan struct{})
	t.Cleanup(func() { close(hung.block) })
	ch := dial(t, addr, client.Options{Callbacks: client.Predicates})
	registerAs(t, ch, "hung", hung)
	populate(t, ch, "hung", []string{"h0"}, 1)
	deadline := time.Now().Add(10 * time.Second)
	for hungState(srv).Unanswered < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the hung RM's calls: %+v", hungState(srv))
		}
		time.Sleep(5 * time.Millisecond)
	}

	other := newPicky("")
	co := dial(t, addr, client.Options{})
	registerAs(t, co, "other", other)
	populate(t, co, "other", []string{"o0"}, 2)
	other.await(t, "the other RM's 2 allocations", func() bool { return len(other.allocs) == 2 })

	hung.pmu.Lock()
	asked := hung.asked["h0"]
	hung.pmu.Unlock()
	hung.mu.Lock()
	placed := len(hung.allocs)
	hung.mu.Unlock()
	if asked != 1 || placed != 0 {
		t.Errorf("hung RM asked %d times and got %d allocations: want 1 and 0", asked, placed)
	}
}

func hungState(srv *grpcserver.Server) grpcserver.RMStatus {
	for _, st := range srv.RMs() {
		if st.RmID == "hung" {
			return st
		}
	}
	return grpcserver.RMStatus{}
}

// preemptRM answers PreemptionPredicates with accept() and counts the
// calls and the allocations the scheduler takes back.
type preemptRM struct {
	*picky
	accept   atomic.Bool
	checks   atomic.Int32
	released atomic.Int32
}

func (p *preemptRM) PreemptionPredicates(a *si.PreemptionPredicatesArgs) *si.PreemptionPredicatesResponse {
	p.checks.Add(1)
	if !p.accept.Load() {
		return &si.PreemptionPredicatesResponse{Success: false}
	}
	return &si.PreemptionPredicatesResponse{Success: true, Index: a.StartIndex}
}

func (p *preemptRM) UpdateAllocation(r *si.AllocationResponse) error {
	for _, x := range r.Released {
		if x.TerminationType == si.TerminationType_PREEMPTED_BY_SCHEDULER {
			p.released.Add(1)
		}
	}
	return p.picky.UpdateAllocation(r)
}

// A gRPC RM's PreemptionPredicates refusing a plan keeps its allocations
// from being preempted; accepting lets the preemption go ahead.
func TestPreemptionPredicatesOverGRPC(t *testing.T) {
	v := clock.NewVirtual(time.Unix(1000, 0))
	svc := rmproxy.New(v)
	t.Cleanup(svc.Stop)
	srv := grpcserver.New(svc, grpcserver.Options{CallbackTimeout: time.Minute})
	lis, err := srv.Listen("127.0.0.1:0")
	must(t, err)
	t.Cleanup(srv.Stop)
	c := dial(t, lis.String(), client.Options{Callbacks: client.PreemptionPredicates})
	rm := &preemptRM{picky: newPicky("")}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conf := cfg + "            resources: {guaranteed: {vcore: 4000}}\n" // root.b guaranteed
	must(t, c.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "rm1", Config: conf}, rm))
	must(t, c.UpdateNode(nodes(1)))
	must(t, c.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "a", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "u"}},
		{ApplicationID: "b", QueueName: "root.b", Ugi: &si.UserGroupInformation{User: "u"}},
	}}))
	fill := &si.AllocationRequest{RmID: "rm1"}
	for i := range 4 {
		fill.Allocations = append(fill.Allocations, &si.Allocation{AllocationKey: fmt.Sprint("a", i), ApplicationID: "a", ResourcePerAlloc: res(1000, 1<<20)})
	}
	must(t, c.UpdateAllocation(fill))
	rm.await(t, "4 allocations", func() bool { return len(rm.allocs) == 4 })
	must(t, c.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "b0", ApplicationID: "b", ResourcePerAlloc: res(2000, 1<<20)}}}))
	// past preemption.delay: the scheduler asks, the RM refuses
	deadline := time.Now().Add(30 * time.Second)
	for rm.checks.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("PreemptionPredicates never asked")
		}
		v.Advance(time.Second)
		time.Sleep(20 * time.Millisecond)
	}
	// a few more cycles, past the retry interval: still refused, nothing taken
	for range 5 {
		v.Advance(20 * time.Second)
		time.Sleep(150 * time.Millisecond)
	}
	if n := rm.released.Load(); n != 0 {
		t.Fatalf("%d allocations preempted though the RM refused every plan (%d asked)", n, rm.checks.Load())
	}
	rm.accept.Store(true)
	deadline = time.Now().Add(30 * time.Second)
	for rm.released.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("nothing preempted after the RM accepted (%d asked)", rm.checks.Load())
		}
		v.Advance(20 * time.Second)
		time.Sleep(20 * time.Millisecond)
	}
}
