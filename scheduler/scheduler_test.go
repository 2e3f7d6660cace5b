package scheduler_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"

	"github.com/paddock-sched/paddock/scheduler"
)

func quiet() slog.Handler { return slog.NewTextHandler(io.Discard, nil) }

func start(t *testing.T, o scheduler.Options) *scheduler.Scheduler {
	t.Helper()
	o.LogHandler = quiet()
	s, err := scheduler.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

const twoQueues = `
partitions:
  - name: default
    placementrules:
      - name: provided
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources:
              max: {vcore: 2}
          - name: b
`

// setUp registers an RM with two nodes and one application with three
// asks of one core, of which queue root.a's max lets two be allocated.
func setUp(t *testing.T, s *scheduler.Scheduler) *rm {
	t.Helper()
	r := &rm{allocated: make(chan *si.Allocation, 10)}
	api := s.API()
	if _, err := api.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", PolicyGroup: "queues"}, r); err != nil {
		t.Fatal(err)
	}
	var nodes []*si.NodeInfo
	for _, id := range []string{"n1", "n2"} {
		nodes = append(nodes, &si.NodeInfo{NodeID: id, Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30),
			Attributes: map[string]string{common.NodePartition: "default", common.HostName: id}})
	}
	must(api.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: nodes}))
	must(api.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{{
		ApplicationID: "app1", QueueName: "root.a", PartitionName: "default", Ugi: &si.UserGroupInformation{User: "bob"},
	}}}))
	var asks []*si.Allocation
	for _, k := range []string{"k1", "k2", "k3"} {
		asks = append(asks, &si.Allocation{AllocationKey: k, ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)})
	}
	must(api.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks}))
	for range 2 {
		select {
		case <-r.allocated:
		case <-time.After(10 * time.Second):
			t.Fatal("timed out waiting for two allocations")
		}
	}
	return r
}

func TestViewShowsState(t *testing.T) {
	s := start(t, scheduler.Options{Config: twoQueues})
	setUp(t, s)
	v, err := s.View(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := v.Partition("default")
	if p == nil || p.RMID != "rm1" {
		t.Fatalf("partition default = %+v", p)
	}
	if q := v.Partition("[rm1]default"); q != p {
		t.Errorf("[rm1]default is not the same partition")
	}
	if v.Partition("[other]default") != nil || v.Partition("nope") != nil {
		t.Error("unknown partitions found")
	}
	if got := p.Capacity[common.CPU]; got != 8000 {
		t.Errorf("capacity vcore = %d, want 8000", got)
	}
	a := p.App("app1")
	if a == nil {
		t.Fatal("app1 not in the view")
	}
	if a.State != "Running" || a.Queue != "root.a" || a.User != "bob" {
		t.Errorf("app1 = state %s queue %s user %s", a.State, a.Queue, a.User)
	}
	if len(a.Allocations) != 2 || len(a.Asks) != 1 {
		t.Fatalf("app1 has %d allocations and %d asks, want 2 and 1", len(a.Allocations), len(a.Asks))
	}
	if a.Allocated[common.CPU] != 2000 || a.Pending[common.CPU] != 1000 {
		t.Errorf("app1 allocated %v pending %v", a.Allocated, a.Pending)
	}
	q := p.Queue("ROOT.A")
	if q == nil || !q.Leaf || q.Max[common.CPU] != 2000 || q.Allocated[common.CPU] != 2000 {
		t.Errorf("queue root.a = %+v", q)
	}
	if p.Queue("root") == nil || p.Queue("root.b") == nil || len(p.Queues) != 3 {
		t.Errorf("queues = %d, want root, root.a, root.b", len(p.Queues))
	}
	var onNodes int64
	for _, n := range p.Nodes {
		if n.Capacity[common.CPU] != 4000 || n.Available[common.CPU] != 4000-n.Allocated[common.CPU] {
			t.Errorf("node %s: capacity %v allocated %v available %v", n.ID, n.Capacity, n.Allocated, n.Available)
		}
		for _, x := range n.Allocations {
			if x.NodeID != n.ID || x.AppID != "app1" {
				t.Errorf("allocation %s on %s says node %s app %s", x.Key, n.ID, x.NodeID, x.AppID)
			}
		}
		onNodes += n.Allocated[common.CPU]
	}
	if onNodes != 2000 {
		t.Errorf("nodes hold %d millicores, want 2000", onNodes)
	}
	if p.Node("n1") == nil || p.Node("n3") != nil {
		t.Error("node lookup wrong")
	}
}

// TestViewIsCurrentAndIsolated: a view taken after an update shows it, and
// changing a view changes neither the scheduler nor a later view.
func TestViewIsCurrentAndIsolated(t *testing.T) {
	s := start(t, scheduler.Options{Config: twoQueues})
	setUp(t, s)
	ctx := context.Background()
	v1, err := s.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v1.Partition("default").App("app1").Allocated[common.CPU] = 42
	v1.Partition("default").Nodes = nil

	must(s.API().UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Releases: &si.AllocationReleasesRequest{
		AllocationsToRelease: []*si.AllocationRelease{{ApplicationID: "app1", PartitionName: "default", AllocationKey: "k3", TerminationType: si.TerminationType_STOPPED_BY_RM}},
	}}))
	deadline := time.Now().Add(10 * time.Second)
	for {
		v2, err := s.View(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p := v2.Partition("default")
		if len(p.Nodes) != 2 || p.App("app1").Allocated[common.CPU] == 42 {
			t.Fatal("a change to an earlier view reached a later one")
		}
		if v2.Generation < v1.Generation {
			t.Fatalf("generation %d after %d", v2.Generation, v1.Generation)
		}
		if len(p.App("app1").Asks) == 0 {
			if v2.Generation == v1.Generation {
				t.Fatalf("the release shows at the same generation %d", v1.Generation)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the released ask is still pending")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestEndpoints(t *testing.T) {
	s := start(t, scheduler.Options{Config: twoQueues, RESTAddr: "127.0.0.1:0", GRPCAddr: "127.0.0.1:0", SnapshotMaxAge: -1})
	if s.RESTAddr() == "" || s.GRPCAddr() == "" {
		t.Fatalf("addresses %q %q", s.RESTAddr(), s.GRPCAddr())
	}
	setUp(t, s)
	resp, err := http.Get("http://" + s.RESTAddr() + "/ws/v1/partition/default/queue/root.a/applications")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"app1"`) {
		t.Errorf("REST applications: %d %s", resp.StatusCode, b)
	}

	in := start(t, scheduler.Options{})
	if in.RESTAddr() != "" || in.GRPCAddr() != "" {
		t.Errorf("in-process scheduler listens on %q %q", in.RESTAddr(), in.GRPCAddr())
	}
}

func TestStartRejects(t *testing.T) {
	if _, err := scheduler.Start(scheduler.Options{Config: "partitions: [", LogHandler: quiet()}); err == nil {
		t.Error("a malformed configuration started")
	}
	s := start(t, scheduler.Options{RESTAddr: "127.0.0.1:0"})
	if _, err := scheduler.Start(scheduler.Options{RESTAddr: s.RESTAddr(), LogHandler: quiet()}); err == nil {
		t.Error("a second scheduler started on a busy REST address")
	}
}

func TestShutdownIsIdempotent(t *testing.T) {
	s, err := scheduler.Start(scheduler.Options{LogHandler: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	s.Stop()
	if err := s.Shutdown(context.Background()); err != nil {
		t.Errorf("second shutdown: %v", err)
	}
}

// embedderClock is a clock of the embedder's own (such as one of
// k8s.io/utils/clock/testing), not a scheduler.FakeClock.
type embedderClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *embedderClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *embedderClock) step(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestOptionsClockDrivesTimers is issue 38 item 8: the scheduler's timers
// run on the clock in Options, here a placeholder timeout of an hour that
// the test passes without waiting for it.
func TestOptionsClockDrivesTimers(t *testing.T) {
	clk := &embedderClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := start(t, scheduler.Options{Clock: clk})
	api := s.API()
	r := &gangRM{allocated: make(chan string, 1), released: make(chan string, 1)}
	if _, err := api.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", PolicyGroup: "queues"}, r); err != nil {
		t.Fatal(err)
	}
	must(api.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n1", Action: si.NodeInfo_CREATE,
		SchedulableResource: res(4000, 8<<30), Attributes: map[string]string{common.NodePartition: "default"}}}}))
	must(api.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{{
		ApplicationID: "g", PartitionName: "default", Tags: map[string]string{"namespace": "a"}, Ugi: &si.UserGroupInformation{User: "u"},
		PlaceholderAsk: res(1000, 1<<30), ExecutionTimeoutMilliSeconds: time.Hour.Milliseconds(),
	}}}))
	must(api.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{{AllocationKey: "ph", ApplicationID: "g",
		PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30), Placeholder: true, TaskGroupName: "tg"}}}))
	if got := collect(r.allocated, 1); len(got) != 1 || got[0] != "ph" {
		t.Fatalf("allocated %v, want [ph]", got)
	}
	clk.step(time.Hour)
	if got := collect(r.released, 1); len(got) != 1 || got[0] != "ph TIMEOUT" {
		t.Fatalf("released %v after the clock passed the timeout, want [ph TIMEOUT]", got)
	}
}
