package grpcserver_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/client"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/grpcserver"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

const cfg = `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
          - name: b
`

// cfgWithC adds queue root.c.
const cfgWithC = cfg + `          - name: c
`

// recorder is a remote RM's callback; responses arrive on three goroutines.
type recorder struct {
	callback.Nop // predicates pass; events are dropped
	mu           sync.Mutex
	allocs       map[string]*si.Allocation // by allocation key
	accApps      map[string]bool
	rejApps      map[string]bool
	accNodes     map[string]bool
	rejAllocs    map[string]string // by allocation key: the reason
	released     map[string]string // preempted allocations by key: the message
	changed      chan struct{}
}

func newRecorder() *recorder {
	return &recorder{allocs: map[string]*si.Allocation{}, accApps: map[string]bool{}, rejApps: map[string]bool{},
		accNodes: map[string]bool{}, rejAllocs: map[string]string{}, released: map[string]string{}, changed: make(chan struct{}, 1)}
}

var _ api.ResourceManagerCallback = (*recorder)(nil)

func (r *recorder) poke() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) UpdateAllocation(resp *si.AllocationResponse) error {
	r.mu.Lock()
	for _, a := range resp.New {
		r.allocs[a.AllocationKey] = a
	}
	for _, a := range resp.RejectedAllocations {
		r.rejAllocs[a.AllocationKey] = a.Reason
	}
	for _, a := range resp.Released {
		if a.TerminationType == si.TerminationType_PREEMPTED_BY_SCHEDULER {
			r.released[a.AllocationKey] = a.Message
		}
	}
	r.mu.Unlock()
	r.poke()
	return nil
}

func (r *recorder) UpdateApplication(resp *si.ApplicationResponse) error {
	r.mu.Lock()
	for _, a := range resp.Accepted {
		r.accApps[a.ApplicationID] = true
	}
	for _, a := range resp.Rejected {
		r.rejApps[a.ApplicationID] = true
	}
	r.mu.Unlock()
	r.poke()
	return nil
}

func (r *recorder) UpdateNode(resp *si.NodeResponse) error {
	r.mu.Lock()
	for _, n := range resp.Accepted {
		r.accNodes[n.NodeID] = true
	}
	r.mu.Unlock()
	r.poke()
	return nil
}

func (r *recorder) await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		ok := cond()
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func res(cpu, mem int64) *si.Resource {
	return &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: cpu}, "memory": {Value: mem}}}
}

func nodes(n int) *si.NodeRequest {
	req := &si.NodeRequest{RmID: "rm1"}
	for i := range n {
		req.Nodes = append(req.Nodes, &si.NodeInfo{NodeID: fmt.Sprint("n", i), Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)})
	}
	return req
}

func app(id, queue string) *si.ApplicationRequest {
	return &si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{{ApplicationID: id, QueueName: queue, Ugi: &si.UserGroupInformation{User: "alice"}}}}
}

func asks(from, to int) *si.AllocationRequest {
	req := &si.AllocationRequest{RmID: "rm1"}
	for i := from; i < to; i++ {
		req.Allocations = append(req.Allocations, &si.Allocation{AllocationKey: fmt.Sprint("ask", i), ApplicationID: "app1", ResourcePerAlloc: res(1000, 1<<30)})
	}
	return req
}

// stack is a scheduler service with the gRPC server in front of it.
func stack(t *testing.T, opts grpcserver.Options) (*rmproxy.Service, *grpcserver.Server, string) {
	t.Helper()
	svc := rmproxy.New(clock.Real{})
	t.Cleanup(svc.Stop)
	srv := grpcserver.New(svc, opts)
	addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return svc, srv, addr.String()
}

func dial(t *testing.T, addr string, opts client.Options) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, addr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func register(t *testing.T, c *client.Client, rec *recorder) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "rm1", Version: "test", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func rmState(srv *grpcserver.Server) grpcserver.RMStatus {
	for _, st := range srv.RMs() {
		if st.RmID == "rm1" {
			return st
		}
	}
	return grpcserver.RMStatus{}
}

func awaitState(t *testing.T, srv *grpcserver.Server, want grpcserver.RMState, open int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := rmState(srv)
		if st.State == want && len(st.OpenStreams) == open {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("rm1 is %+v, want %s with %d open streams", st, want, open)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// verify checks the engine's roll-ups and returns the allocation count of app1.
func verify(t *testing.T, svc *rmproxy.Service) int {
	t.Helper()
	count := -1
	must(t, svc.Inspect(func(e *engine.Engine) {
		if err := e.Verify(); err != nil {
			t.Error(err)
		}
		p, err := e.Partition("rm1", "default")
		if err != nil {
			t.Error(err)
			return
		}
		if a, ok := p.App("app1"); ok {
			count = a.AllocatedCount()
		}
	}))
	return count
}

func TestEndToEnd(t *testing.T) {
	svc, srv, addr := stack(t, grpcserver.Options{Token: "s3cret"})
	c := dial(t, addr, client.Options{Token: "s3cret"})
	rec := newRecorder()
	register(t, c, rec)

	must(t, c.UpdateNode(nodes(3)))
	rec.await(t, "3 nodes accepted", func() bool { return len(rec.accNodes) == 3 })
	must(t, c.UpdateApplication(app("app1", "root.a")))
	rec.await(t, "app1 accepted", func() bool { return rec.accApps["app1"] })
	must(t, c.UpdateAllocation(asks(0, 10)))
	rec.await(t, "10 allocations", func() bool { return len(rec.allocs) == 10 })
	for k, a := range rec.allocs {
		if a.NodeID == "" || !rec.accNodes[a.NodeID] || a.ApplicationID != "app1" {
			t.Errorf("allocation %s: node %q app %q", k, a.NodeID, a.ApplicationID)
		}
	}
	if n := verify(t, svc); n != 10 {
		t.Errorf("engine holds %d allocations of app1, want 10", n)
	}
	awaitState(t, srv, grpcserver.RMRunning, 3)

	// configuration updates go through the Admin service
	must(t, c.UpdateApplication(app("app2", "root.c")))
	rec.await(t, "app2 rejected (no queue root.c)", func() bool { return rec.rejApps["app2"] })
	must(t, c.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "rm1", Config: cfgWithC}))
	must(t, c.UpdateApplication(app("app3", "root.c")))
	rec.await(t, "app3 accepted in the new queue root.c", func() bool { return rec.accApps["app3"] })
	if err := c.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "rm1", Config: "partitions: [{name: x, queues: [{name: root, bogus: 1}]}]"}); err == nil {
		t.Error("a bad configuration was accepted")
	}

	// closing the client is a voluntary shutdown
	must(t, c.Close())
	awaitState(t, srv, grpcserver.RMStopped, 0)
}

// proxy forwards TCP connections to a backend until cut.
type proxy struct {
	lis     net.Listener
	backend string
	mu      sync.Mutex
	conns   []net.Conn
}

func newProxy(t *testing.T, backend string) *proxy {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{lis: lis, backend: backend}
	go p.serve()
	t.Cleanup(func() { lis.Close(); p.cut() })
	return p
}

func (p *proxy) serve() {
	for {
		in, err := p.lis.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.backend)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go func() { io.Copy(out, in); out.Close() }()
		go func() { io.Copy(in, out); in.Close() }()
	}
}

// cut breaks every connection made so far, as a network failure would.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func TestConnectionLossPausesThenResyncs(t *testing.T) {
	svc, srv, addr := stack(t, grpcserver.Options{})
	px := newProxy(t, addr)
	c := dial(t, px.lis.Addr().String(), client.Options{})
	rec := newRecorder()
	register(t, c, rec)
	must(t, c.UpdateNode(nodes(3)))
	rec.await(t, "3 nodes accepted", func() bool { return len(rec.accNodes) == 3 })
	must(t, c.UpdateApplication(app("app1", "root.a")))
	rec.await(t, "app1 accepted", func() bool { return rec.accApps["app1"] })
	must(t, c.UpdateAllocation(asks(0, 10)))
	rec.await(t, "10 allocations", func() bool { return len(rec.allocs) == 10 })
	awaitState(t, srv, grpcserver.RMRunning, 3)

	px.cut()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not notice the connection loss")
	}
	if c.Err() == nil {
		t.Error("Done closed without an error")
	}
	if err := c.UpdateNode(nodes(1)); err == nil {
		t.Error("sending on broken streams succeeded")
	}
	awaitState(t, srv, grpcserver.RMPaused, 0)

	// reconnect on the same client: register again and resync
	rec2 := newRecorder()
	register(t, c, rec2)
	awaitState(t, srv, grpcserver.RMRunning, 3)
	if n := verify(t, svc); n != -1 {
		t.Fatalf("re-registration kept app1 with %d allocations", n)
	}
	must(t, c.UpdateNode(nodes(3)))
	rec2.await(t, "3 nodes accepted again", func() bool { return len(rec2.accNodes) == 3 })
	must(t, c.UpdateApplication(app("app1", "root.a")))
	rec2.await(t, "app1 accepted again", func() bool { return rec2.accApps["app1"] })
	resync := &si.AllocationRequest{RmID: "rm1"}
	for _, a := range rec.allocs {
		resync.Allocations = append(resync.Allocations, &si.Allocation{AllocationKey: a.AllocationKey, ApplicationID: "app1", NodeID: a.NodeID, ResourcePerAlloc: a.ResourcePerAlloc})
	}
	must(t, c.UpdateAllocation(resync))
	rec2.await(t, "10 recovered allocations confirmed", func() bool { return len(rec2.allocs) == 10 })
	for k, a := range rec2.allocs {
		if a.NodeID != rec.allocs[k].NodeID {
			t.Errorf("recovered %s on %s, was on %s", k, a.NodeID, rec.allocs[k].NodeID)
		}
	}

	// and it keeps scheduling: 2 cores are left, a third ask waits
	must(t, c.UpdateAllocation(asks(10, 13)))
	rec2.await(t, "2 new allocations", func() bool { return len(rec2.allocs) == 12 })
	if n := verify(t, svc); n != 12 {
		t.Errorf("engine holds %d allocations of app1, want 12", n)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.allocs) != 10 {
		t.Errorf("the first registration's callback got %d allocations after the loss, want 10", len(rec.allocs))
	}
}
