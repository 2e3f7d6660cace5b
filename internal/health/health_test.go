package health

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/snapshot"
	"github.com/paddock-sched/paddock/internal/resource"
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

func res(cpu, mem int64) *si.Resource {
	return &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: cpu}, "memory": {Value: mem}}}
}

// cluster is a manual service with two nodes, an application with two
// allocations and a pending ask.
func cluster(t *testing.T) *rmproxy.Service {
	t.Helper()
	s := rmproxy.NewManual(clock.NewVirtual(time.Unix(1000, 0)))
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm", Config: cfg}, callback.Nop{}); err != nil {
		t.Fatal(err)
	}
	s.UpdateNode(&si.NodeRequest{RmID: "rm", Nodes: []*si.NodeInfo{
		{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)},
		{NodeID: "n2", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)},
	}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
	}})
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Allocations: []*si.Allocation{
		{AllocationKey: "k1", ApplicationID: "app1", ResourcePerAlloc: res(3000, 1<<30)},
		{AllocationKey: "k2", ApplicationID: "app1", ResourcePerAlloc: res(3000, 1<<30)},
		{AllocationKey: "k3", ApplicationID: "app1", ResourcePerAlloc: res(3000, 1<<30)},
	}})
	s.Cycle()
	return s
}

func byName(t *testing.T, r Result, name string) Check {
	t.Helper()
	for _, c := range r.HealthChecks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, r)
	return Check{}
}

func TestHealthyCluster(t *testing.T) {
	s := cluster(t)
	c := New(s, 0)
	if _, _, ok := c.Last(); ok {
		t.Fatal("a result before the first check")
	}
	r := c.Check(context.Background())
	want := []string{"Scheduling errors", "Failed nodes", "Negative resources", "Consistency of data",
		"Reservation check", "Orphan allocation on node check", "Orphan allocation on app check"}
	if len(r.HealthChecks) != len(want) {
		t.Fatalf("%d checks, want %d", len(r.HealthChecks), len(want))
	}
	for i, c := range r.HealthChecks {
		if c.Name != want[i] || !c.Succeeded || c.Description == "" || c.DiagnosisMessage != "" {
			t.Errorf("check %d = %+v", i, c)
		}
	}
	if !r.Healthy {
		t.Error("healthy cluster reported unhealthy")
	}
	if last, _, ok := c.Last(); !ok || !last.Healthy {
		t.Error("Last does not keep the result")
	}
}

// TestErrorChecksRecover: a rejected node fails "Failed nodes" once; the
// next check, with no new rejection, passes again.
func TestErrorChecksRecover(t *testing.T) {
	s := cluster(t)
	c := New(s, time.Minute)
	ctx := context.Background()
	if r := c.Check(ctx); !r.Healthy {
		t.Fatalf("unhealthy at start: %+v", r)
	}
	s.UpdateNode(&si.NodeRequest{RmID: "rm", Nodes: []*si.NodeInfo{{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(1, 1)}}})
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Allocations: []*si.Allocation{{AllocationKey: "x", ApplicationID: "ghost", ResourcePerAlloc: res(1, 1)}}})
	s.Cycle()
	r := c.Check(ctx)
	if r.Healthy {
		t.Fatal("rejections not reported")
	}
	if f := byName(t, r, "Failed nodes"); f.Succeeded || !strings.Contains(f.DiagnosisMessage, "1 node requests rejected") {
		t.Errorf("failed nodes: %+v", f)
	}
	if f := byName(t, r, "Scheduling errors"); f.Succeeded || !strings.Contains(f.DiagnosisMessage, "1 asks or allocations rejected") {
		t.Errorf("scheduling errors: %+v", f)
	}
	if r := c.Check(ctx); !r.Healthy {
		t.Errorf("did not recover: %+v", r)
	}
}

// fixed serves one snapshot that the test may change between checks.
type fixed struct {
	mu   sync.Mutex
	snap *snapshot.Snapshot
	err  error
}

func (f *fixed) Snapshot(context.Context) (*snapshot.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snap, f.err
}

func TestStateChecksDetectAndRecover(t *testing.T) {
	s := cluster(t)
	good, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		check, msg string
		spoil      func(p *snapshot.Partition) (undo func())
	}{
		{"Negative resources", "node n1: negative occupied", func(p *snapshot.Partition) func() {
			n, _ := p.Node("n1")
			old := n.Occupied
			n.Occupied[resource.VCoreIndex] = -5
			return func() { n.Occupied = old }
		}},
		{"Consistency of data", "capacity", func(p *snapshot.Partition) func() {
			old := p.Capacity
			p.Capacity[resource.MemoryIndex]++
			return func() { p.Capacity = old }
		}},
		{"Consistency of data", "queue root.a: allocated", func(p *snapshot.Partition) func() {
			q, _ := p.Queue("root.a")
			old := q.Allocated
			q.Allocated[resource.VCoreIndex] += 1000
			return func() { q.Allocated = old }
		}},
		{"Orphan allocation on node check", "not listed by application app1", func(p *snapshot.Partition) func() {
			a, _ := p.App("app1")
			old := a.Allocations
			a.Allocations = old[1:]
			return func() { a.Allocations = old }
		}},
		{"Orphan allocation on app check", "not listed by node", func(p *snapshot.Partition) func() {
			n := p.Nodes[0]
			old := n.Allocations
			n.Allocations = nil
			return func() { n.Allocations = old }
		}},
		{"Reservation check", "unknown node gone", func(p *snapshot.Partition) func() {
			p.Reservations = []snapshot.Reservation{{AppID: "app1", AskKey: "k3", NodeID: "gone"}}
			return func() { p.Reservations = nil }
		}},
	}
	for _, tc := range cases {
		src := &fixed{snap: good}
		c := New(src, 0)
		p, _ := good.Partition("default")
		undo := tc.spoil(p)
		r := c.Check(context.Background())
		got := byName(t, r, tc.check)
		if r.Healthy || got.Succeeded || !strings.Contains(got.DiagnosisMessage, tc.msg) {
			t.Errorf("%s: %+v, want a failure mentioning %q", tc.check, got, tc.msg)
		}
		undo()
		if r := c.Check(context.Background()); !r.Healthy {
			t.Errorf("%s: did not recover: %+v", tc.check, r)
		}
	}
}

func TestSourceError(t *testing.T) {
	c := New(&fixed{err: errors.New("stopped")}, 0)
	r := c.Check(context.Background())
	if r.Healthy || len(r.HealthChecks) != 1 || r.HealthChecks[0].DiagnosisMessage != "stopped" {
		t.Errorf("%+v", r)
	}
}

func TestRunChecksPeriodically(t *testing.T) {
	src := &fixed{snap: &snapshot.Snapshot{}}
	c := New(src, 5*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	var first time.Time
	for time.Now().Before(deadline) {
		if _, at, ok := c.Last(); ok {
			if first.IsZero() {
				first = at
			} else if at.After(first) {
				break
			}
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	if _, at, _ := c.Last(); !at.After(first) {
		t.Error("Run did not check more than once")
	}
}

// counting is a source that counts the snapshots taken.
type counting struct {
	mu sync.Mutex
	n  int
}

func (c *counting) Snapshot(context.Context) (*snapshot.Snapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return &snapshot.Snapshot{}, nil
}

func (c *counting) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// TestIntervalReload: health.checkInterval from an extra configuration
// changes a running checker's interval at once; 0 stops the periodic
// checks; an invalid value changes nothing; no key means the default.
func TestIntervalReload(t *testing.T) {
	src := &counting{}
	c := New(src, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	waitFor("the first check", func() bool { return src.count() == 1 })

	if err := c.Apply(map[string]string{IntervalKey: "5ms"}); err != nil {
		t.Fatal(err)
	}
	if c.Interval() != 5*time.Millisecond {
		t.Fatalf("interval %v after reload", c.Interval())
	}
	waitFor("checks every 5ms", func() bool { return src.count() >= 4 })

	if err := c.Apply(map[string]string{IntervalKey: "0s"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // a check already running may finish
	n := src.count()
	time.Sleep(50 * time.Millisecond)
	if got := src.count(); got != n {
		t.Fatalf("%d checks while disabled", got-n)
	}

	if err := c.Apply(map[string]string{IntervalKey: "soon"}); err == nil || c.Interval() != 0 {
		t.Fatalf("invalid value: err %v, interval %v", err, c.Interval())
	}
	if err := c.Apply(map[string]string{}); err != nil || c.Interval() != DefaultInterval {
		t.Fatalf("no key: err %v, interval %v", err, c.Interval())
	}
}
