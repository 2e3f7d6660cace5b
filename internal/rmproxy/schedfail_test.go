package rmproxy

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/resource"
)

// bindRig is a manual service with one RM, nodes of 4 cores and 8 GiB and
// application app1 in root.a.
type bindRig struct {
	t   *testing.T
	clk *clock.Virtual
	s   *Service
	rec *recorder
}

func newBindRig(t *testing.T, nodes ...string) *bindRig {
	t.Helper()
	clk := clock.NewVirtual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	r := &bindRig{t: t, clk: clk, s: NewManual(clk), rec: newRecorder()}
	if _, err := r.s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, r.rec); err != nil {
		t.Fatal(err)
	}
	var infos []*si.NodeInfo
	for _, n := range nodes {
		infos = append(infos, &si.NodeInfo{NodeID: n, Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)})
	}
	_ = r.s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: infos})
	_ = r.s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", PartitionName: "default", Ugi: &si.UserGroupInformation{User: "alice"}},
	}})
	r.cycle()
	return r
}

// cycle advances the clock a little and runs one service cycle.
func (r *bindRig) cycle() {
	r.clk.Advance(100 * time.Millisecond)
	r.s.Cycle()
	r.verify()
}

func (r *bindRig) verify() {
	r.t.Helper()
	if err := r.s.Inspect(func(e *engine.Engine) {
		if err := e.Verify(); err != nil {
			r.t.Error(err)
		}
	}); err != nil {
		r.t.Fatal(err)
	}
}

func (r *bindRig) failBinding(appID, key string) {
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Releases: &si.AllocationReleasesRequest{
		AllocationsToRelease: []*si.AllocationRelease{{
			PartitionName: "default", ApplicationID: appID, AllocationKey: key,
			TerminationType: si.TerminationType_SCHEDULING_FAILED_ON_RM, Message: "task completed",
		}},
	}})
}

// allocsOf returns the allocations delivered for key, in order.
func (r *bindRig) allocsOf(key string) []*si.Allocation {
	var out []*si.Allocation
	for _, a := range r.rec.allocs {
		if a.AllocationKey == key {
			out = append(out, a)
		}
	}
	return out
}

// inspect runs f with the live partition "default" of rm1.
func (r *bindRig) inspect(f func(e *engine.Engine)) {
	r.t.Helper()
	if err := r.s.Inspect(f); err != nil {
		r.t.Fatal(err)
	}
}

func TestSchedulingFailedOnRMReallocatesElsewhere(t *testing.T) {
	r := newBindRig(t, "n1", "n2")
	ask := &si.Allocation{
		AllocationKey: "pod-1", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(3000, 1<<30),
		Priority: 7, AllocationTags: map[string]string{"kubernetes.io/meta/podName": "pod-1"},
	}
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{ask}})
	r.cycle()
	first := r.allocsOf("pod-1")
	if len(first) != 1 {
		t.Fatalf("want one allocation of pod-1, got %d", len(first))
	}
	failed := first[0].NodeID

	r.failBinding("app1", "pod-1")
	r.cycle()
	got := r.allocsOf("pod-1")
	if len(got) != 2 {
		t.Fatalf("want a second allocation of pod-1 after the failed binding, got %d", len(got))
	}
	again := got[1]
	if again.NodeID == failed || again.NodeID == "" {
		t.Errorf("re-allocated on %q, want the other node than %s", again.NodeID, failed)
	}
	if again.Priority != 7 || again.AllocationTags["kubernetes.io/meta/podName"] != "pod-1" ||
		again.ResourcePerAlloc.Resources["vcore"].Value != 3000 || again.ApplicationID != "app1" {
		t.Errorf("re-allocation lost the ask's properties: %v", again)
	}
	for _, rel := range r.rec.released {
		t.Errorf("release echoed to the RM: %v", rel)
	}
	for _, rej := range r.rec.rejAlloc {
		t.Errorf("rejected: %v", rej)
	}
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		n, _ := p.Node(failed)
		if n.Allocated.AnyPositive() {
			t.Errorf("node %s still holds %v", failed, n.Allocated)
		}
		a, _ := p.App("app1")
		if a.AllocatedCount() != 1 || a.PendingCount() != 0 {
			t.Errorf("app1: %d allocated, %d pending; want 1, 0", a.AllocatedCount(), a.PendingCount())
		}
	})
}

func TestSchedulingFailedOnRMOneNodeGoesBack(t *testing.T) {
	r := newBindRig(t, "n1")
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "pod-1", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)},
	}})
	r.cycle()
	r.failBinding("app1", "pod-1")
	r.cycle()
	got := r.allocsOf("pod-1")
	if len(got) != 2 || got[1].NodeID != "n1" {
		t.Fatalf("want pod-1 allocated twice, on n1; got %v", got)
	}
	if len(r.rec.released) != 0 {
		t.Errorf("released echoed: %v", r.rec.released)
	}
}

// The ask is pending between the failed binding and the next pass, with
// its totals moved from allocated to pending everywhere.
func TestSchedulingFailedOnRMMovesTotalsBack(t *testing.T) {
	r := newBindRig(t, "n1", "n2")
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "pod-1", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)},
	}})
	r.cycle()
	var created time.Time
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		a, _ := p.App("app1")
		x, _ := a.Allocation("pod-1")
		created = x.Created
	})
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		if _, err := p.Requeue("app1", "pod-1", r.clk.Now()); err != nil {
			t.Fatal(err)
		}
		if err := e.Verify(); err != nil {
			t.Fatal(err)
		}
		a, _ := p.App("app1")
		x, _ := a.Allocation("pod-1")
		if !x.Pending() || !x.Created.Equal(created) {
			t.Errorf("pod-1 pending %v created %v, want pending, created %v", x.Pending(), x.Created, created)
		}
		q, _ := p.Tree().Queue("root.a")
		if q.Allocated.AnyPositive() || !q.Pending.AnyPositive() {
			t.Errorf("root.a allocated %v pending %v", q.Allocated, q.Pending)
		}
		if u, ok := p.Users().User("alice"); ok {
			for name, v := range u.Queues.ResourceUsage {
				if v != 0 {
					t.Errorf("alice still uses %d %s", v, name)
				}
			}
		}
		if a.State != app.Running {
			t.Errorf("app1 %s, want Running", a.State)
		}
	})
}

func TestSchedulingFailedOnRMUnknownChangesNothing(t *testing.T) {
	r := newBindRig(t, "n1", "n2")
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "pod-1", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)},
		{AllocationKey: "big", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(9000, 1<<30)},
	}})
	r.cycle()
	for _, k := range [][2]string{{"ghost", "pod-1"}, {"app1", "nope"}, {"app1", "big"}, {"app1", ""}} {
		r.failBinding(k[0], k[1])
	}
	r.cycle()
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		a, _ := p.App("app1")
		if a.AllocatedCount() != 1 || a.PendingCount() != 1 {
			t.Errorf("app1: %d allocated %d pending, want 1 1", a.AllocatedCount(), a.PendingCount())
		}
		for _, k := range []string{"pod-1", "big"} {
			if _, ok := a.Allocation(k); !ok {
				t.Errorf("%s is gone", k)
			}
		}
		for _, k := range [][2]string{{"ghost", "pod-1"}, {"app1", "nope"}, {"app1", "big"}} {
			if _, err := p.Requeue(k[0], k[1], r.clk.Now()); err == nil {
				t.Errorf("requeue %s/%s: want an error", k[0], k[1])
			}
		}
	})
	if n := len(r.allocsOf("pod-1")); n != 1 {
		t.Errorf("pod-1 allocated %d times, want 1", n)
	}
	if len(r.rec.released) != 0 {
		t.Errorf("released: %v", r.rec.released)
	}
}

// Many failed bindings in a row: every one comes back as a new allocation
// and the totals stay consistent.
func TestSchedulingFailedOnRMRepeated(t *testing.T) {
	r := newBindRig(t, "n1", "n2", "n3")
	var asks []*si.Allocation
	for i := range 6 {
		asks = append(asks, &si.Allocation{AllocationKey: fmt.Sprint("pod-", i), ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)})
	}
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks})
	r.cycle()
	for round := range 4 {
		for i := range 6 {
			if (i+round)%2 == 0 {
				r.failBinding("app1", fmt.Sprint("pod-", i))
			}
		}
		r.cycle()
	}
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		a, _ := p.App("app1")
		if a.AllocatedCount() != 6 {
			t.Errorf("%d allocated, want 6", a.AllocatedCount())
		}
	})
	if len(r.rec.allocs) != 6+4*3 {
		t.Errorf("%d allocations delivered, want %d", len(r.rec.allocs), 6+4*3)
	}
}

// A failed binding is logged and counted as a release of the queue, an
// ignored one is logged with its reason, and the allocation-removed event
// reaches the hooks.
func TestSchedulingFailedOnRMLogsAndEvents(t *testing.T) {
	r := newBindRig(t, "n1", "n2")
	var logs bytes.Buffer
	var evs []event.Record
	released := 0
	r.s.SetHooks(Hooks{
		Event:  func(_ string, _ *resource.Registry, e *event.Record) { evs = append(evs, *e) },
		Tally:  func(t *Tally) { released += t.Released },
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "pod-1", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)},
	}})
	r.cycle()
	r.failBinding("app1", "pod-1")
	r.failBinding("app1", "ghost")
	r.cycle()
	out := logs.String()
	for _, want := range []string{"scheduling failed on the RM", "key=pod-1", "failed binding ignored", "key=ghost", "unknown in application app1"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if released != 1 {
		t.Errorf("tally counted %d releases, want 1", released)
	}
	found := false
	for _, e := range evs {
		found = found || (e.Type == event.App && e.Change == event.Remove && e.Detail == event.AllocCancel && e.ReferenceID == "pod-1")
	}
	if !found {
		t.Errorf("no APP REMOVE ALLOC_CANCEL event for pod-1 among %d events", len(evs))
	}
}
