package rmproxy

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

// resOf is an SI resource of the given quantities.
func resOf(kv map[string]int64) *si.Resource {
	r := &si.Resource{Resources: map[string]*si.Quantity{}}
	for k, v := range kv {
		r.Resources[k] = &si.Quantity{Value: v}
	}
	return r
}

// mixedRequests are two allocation requests with every kind of item
// askIntake.add tells apart: asks sharing one resource message, names the
// registry knows and names it does not, nil and bad quantities, a nil
// resource, nil items, foreign allocations with and without a node,
// unknown applications and partitions, known keys with the same and with
// other resources, tags the ask's fields come from, a placed allocation.
func mixedRequests() []*si.AllocationRequest {
	shared := res(1000, 1<<30)
	fpga := resOf(map[string]int64{"vcore": 500, "example.com/fpga": 1})
	tags := map[string]string{
		common.DomainYuniKorn + common.KeyRequiredNode: "n1",
		common.CreationTime:                            "1700000000",
	}
	first := []*si.Allocation{
		{AllocationKey: "k1", ApplicationID: "app1", ResourcePerAlloc: shared},
		{AllocationKey: "k2", ApplicationID: "app2", ResourcePerAlloc: shared, Priority: 7},
		nil,
		{AllocationKey: "k3", ApplicationID: "app1"},
		{AllocationKey: "k4", ApplicationID: "app1", ResourcePerAlloc: fpga},
		{AllocationKey: "k5", ApplicationID: "app2", ResourcePerAlloc: fpga},
		{AllocationKey: "k6", ApplicationID: "app1", ResourcePerAlloc: res(-1, 1)},
		{AllocationKey: "k7", ApplicationID: "app1", ResourcePerAlloc: &si.Resource{Resources: map[string]*si.Quantity{"vcore": nil}}},
		{AllocationKey: "f1", ApplicationID: "", NodeID: "n2", ResourcePerAlloc: res(300, 1<<20),
			AllocationTags: map[string]string{common.Foreign: common.AllocTypeDefault}},
		{AllocationKey: "f2", AllocationTags: map[string]string{common.Foreign: common.AllocTypeStatic}, ResourcePerAlloc: shared},
		{AllocationKey: "k8", ApplicationID: "nobody", ResourcePerAlloc: shared},
		{AllocationKey: "k9", ApplicationID: "app1", PartitionName: "elsewhere", ResourcePerAlloc: shared},
		{AllocationKey: "k1", ApplicationID: "app1", ResourcePerAlloc: shared},
		{AllocationKey: "k2", ApplicationID: "app2", ResourcePerAlloc: res(2000, 1<<30)},
		{AllocationKey: "k10", ApplicationID: "app1", ResourcePerAlloc: res(100, 1<<20), AllocationTags: tags,
			Priority: 3, Placeholder: true, TaskGroupName: "tg", Originator: true,
			PreemptionPolicy: &si.PreemptionPolicy{AllowPreemptSelf: false, AllowPreemptOther: true}},
		{AllocationKey: "k11", ApplicationID: "app2", NodeID: "n1", ResourcePerAlloc: res(200, 1<<20)},
		{AllocationKey: "k12", ApplicationID: "app2", ResourcePerAlloc: resOf(map[string]int64{"vcore": 1, "nvidia.com/gpu": 1})},
	}
	second := []*si.Allocation{
		{AllocationKey: "k1", ApplicationID: "app1", ResourcePerAlloc: res(1500, 1<<30)},
		{AllocationKey: "k13", ApplicationID: "app1", ResourcePerAlloc: fpga},
		{AllocationKey: "k14", ApplicationID: "app2", ResourcePerAlloc: &si.Resource{}},
	}
	return []*si.AllocationRequest{{RmID: "rm1", Allocations: first}, {RmID: "rm1", Allocations: second}}
}

// intakeRun sends the requests to a manual service, prepared as
// UpdateAllocation prepares them on a busy service when prep is set, and
// describes all that followed: the RM's
// callbacks, the registry, the asks and the nodes. It also returns how
// many asks of each request UpdateAllocation prepared.
func intakeRun(t *testing.T, reqs []*si.AllocationRequest, prep bool) (string, []int) {
	t.Helper()
	clk := clock.NewVirtual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s := NewManual(clk)
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	_ = s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{
		{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)},
		{NodeID: "n2", Action: si.NodeInfo_CREATE, SchedulableResource: resOf(map[string]int64{"vcore": 4000, "memory": 8 << 30, "nvidia.com/gpu": 2})},
	}})
	_ = s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "u"}},
		{ApplicationID: "app2", QueueName: "root.b", Ugi: &si.UserGroupInformation{User: "u"}},
	}})
	s.Cycle()
	var counts []int
	for _, req := range reqs {
		reg, _, err := s.registered("AllocationRequest", req.RmID)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		if pr := prepare(reg, req); pr != nil {
			for _, x := range pr.asks {
				if x != nil {
					n++
				}
			}
		}
		counts = append(counts, n)
		var pr *prepared
		if prep {
			pr = prepare(reg, req)
		}
		if err := s.enqueue(func(now time.Time) { s.applyAllocations(req, pr, now) }, allocItems(req)); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Second)
		s.Cycle()
	}
	var b strings.Builder
	for _, r := range rec.rejAlloc {
		fmt.Fprintf(&b, "rejected %s/%s: %s\n", r.ApplicationID, r.AllocationKey, r.Reason)
	}
	for _, a := range rec.allocs {
		fmt.Fprintf(&b, "allocated %s on %s %v\n", a.AllocationKey, a.NodeID, a.ResourcePerAlloc.GetResources())
	}
	if err := s.Inspect(func(e *engine.Engine) {
		reg := e.Registry("rm1")
		fmt.Fprintf(&b, "registry %v\n", reg.Names())
		p, err := e.Partition("rm1", "default")
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"app1", "app2"} {
			a, _ := p.App(id)
			var xs []*app.Allocation
			a.Each(func(x *app.Allocation) bool { xs = append(xs, x); return true })
			slices.SortFunc(xs, func(x, y *app.Allocation) int { return strings.Compare(x.Key, y.Key) })
			for _, x := range xs {
				origin, _ := x.Origin.(*si.Allocation) // nil once delivered
				fmt.Fprintf(&b, "%s/%s %s node=%q pending=%v prio=%d seq=%d created=%v required=%q preempt=%v/%v ph=%v tg=%q orig=%v tags=%v origin=%p\n",
					id, x.Key, reg.Format(x.Res), x.NodeID, x.Pending(), x.Priority, x.Seq, x.Created.Unix(), x.RequiredNode,
					x.PreemptSelf, x.PreemptOther, x.Placeholder, x.TaskGroup, x.Originator, x.Tags, origin)
			}
		}
		for _, id := range []string{"n1", "n2"} {
			n, _ := p.Node(id)
			fmt.Fprintf(&b, "node %s allocated %s occupied %s foreign %d\n", id, reg.Format(n.Allocated), reg.Format(n.Occupied), len(n.Foreign))
		}
		if err := e.Verify(); err != nil {
			t.Error(err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	return b.String(), counts
}

// Asks prepared on the caller's goroutine give what the service
// goroutine's own conversion gives: the same rejections with the same
// reasons in the same order, the same allocations and the same state.
func TestPreparedAsksMatchConverted(t *testing.T) {
	reqs := mixedRequests()
	want, _ := intakeRun(t, reqs, false)
	got, counts := intakeRun(t, reqs, true)
	if got != want {
		t.Errorf("prepared intake differs from the service goroutine's:\n--- prepared\n%s--- converted\n%s", got, want)
	}
	// the first request: k1, k2, k3 (nil resource), the k1 and k2 again,
	// k8, k9, k10, k11, k12; not k4, k5 (fpga unknown yet), k6, k7 (bad
	// quantities), nor the nil item and the foreign f1, f2. The second:
	// all three, fpga being known by then.
	if !slices.Equal(counts, []int{10, 3}) {
		t.Errorf("prepared %v asks, want [10 3]", counts)
	}
	for _, line := range []string{
		"rejected app1/k3: allocation k3: empty resource",
		"rejected app1/k6: allocation k6: ",
		"rejected nobody/k8: ",
		"rejected /f2: foreign allocation f2: no node",
		"node n2 allocated ",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("missing %q in\n%s", line, got)
		}
	}
}

// An ask prepared with a registry the RM replaced (it registered again)
// before the service goroutine took it in is converted anew with the new
// registry, where the same name has another index.
func TestPreparedAskOfAReplacedRegistry(t *testing.T) {
	clk := clock.NewVirtual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s := NewManual(clk)
	rec := newRecorder()
	register := func() {
		if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
			t.Fatal(err)
		}
	}
	node := func(id, name string) {
		_ = s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{
			{NodeID: id, Action: si.NodeInfo_CREATE, SchedulableResource: resOf(map[string]int64{"vcore": 4000, "memory": 8 << 30, name: 4})},
		}})
		s.Cycle()
	}
	register()
	node("n1", "nvidia.com/gpu")
	node("n2", "example.com/fpga")
	old, _, _ := s.registered("AllocationRequest", "rm1")
	if i, _ := old.Index("example.com/fpga"); i != 3 {
		t.Fatalf("fpga at %d in the first registry, want 3", i)
	}
	req := &si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "k1", ApplicationID: "app1", ResourcePerAlloc: resOf(map[string]int64{"vcore": 100, "example.com/fpga": 1})},
	}}
	pre := prepare(old, req)
	if al, h := pre.ask(0); al == nil || al.Res[3] != 1 || h != app.HashKey("k1") {
		t.Fatalf("not prepared with the first registry: %+v", pre)
	}

	register() // wipes the RM: a new registry
	node("n3", "example.com/fpga")
	_ = s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "u"}},
	}})
	s.Cycle()
	if cur, _, _ := s.registered("AllocationRequest", "rm1"); cur == old {
		t.Fatal("the service still hands out the replaced registry")
	}
	if err := s.enqueue(func(now time.Time) { s.applyAllocations(req, pre, now) }, 1); err != nil {
		t.Fatal(err)
	}
	s.Cycle()
	if err := s.Inspect(func(e *engine.Engine) {
		reg := e.Registry("rm1")
		p, _ := e.Partition("rm1", "default")
		a, _ := p.App("app1")
		x, ok := a.Allocation("k1")
		if !ok {
			t.Fatal("k1 not taken in")
		}
		if got := reg.Format(x.Res); got != "{example.com/fpga:1 vcore:100}" {
			t.Errorf("k1 resources %s (%v), want vcore 100 and one fpga", got, x.Res)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(rec.allocs) != 1 || rec.allocs[0].NodeID != "n3" {
		t.Errorf("allocations %v, want k1 on n3", rec.allocs)
	}
}

// RMs send asks from many goroutines while nodes intern new resource
// names: preparing reads the registries while the service goroutine
// writes them (run with -race), and every ask ends allocated.
func TestPrepareBesideInterning(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	_ = s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "u"}},
	}})
	const senders, each = 4, 50
	var wg sync.WaitGroup
	for g := range senders {
		wg.Add(2)
		name := fmt.Sprintf("example.com/dev%d", g)
		go func() {
			defer wg.Done()
			_ = s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{
				{NodeID: fmt.Sprint("n", g), Action: si.NodeInfo_CREATE, SchedulableResource: resOf(map[string]int64{"vcore": 100000, "memory": 1 << 40, name: 1000})},
			}})
		}()
		go func() {
			defer wg.Done()
			for i := range each {
				r := res(10, 1<<20)
				if i%2 == 1 {
					r = resOf(map[string]int64{"vcore": 10, name: 1})
				}
				if err := s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
					{AllocationKey: fmt.Sprintf("k%d-%d", g, i), ApplicationID: "app1", ResourcePerAlloc: r},
				}}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	rec.await(t, "all asks allocated", func() bool { return len(rec.allocs) == senders*each })
	if err := s.Inspect(func(e *engine.Engine) {
		reg := e.Registry("rm1")
		for _, a := range rec.allocs {
			var g, i int
			fmt.Sscanf(a.AllocationKey, "k%d-%d", &g, &i)
			want := "{memory:1048576 vcore:10}"
			if i%2 == 1 {
				want = fmt.Sprintf("{example.com/dev%d:1 vcore:10}", g)
				if a.NodeID != fmt.Sprint("n", g) {
					t.Errorf("%s on %s, want n%d", a.AllocationKey, a.NodeID, g)
				}
			}
			p, _ := e.Partition("rm1", "default")
			x, _ := p.App("app1")
			al, ok := x.Allocation(a.AllocationKey)
			if !ok {
				t.Fatalf("%s unknown", a.AllocationKey)
			}
			if got := reg.Format(al.Res); got != want {
				t.Errorf("%s resources %s, want %s", a.AllocationKey, got, want)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
}
