package rmproxy

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

func (r *bindRig) ask(keys ...string) {
	var asks []*si.Allocation
	for _, k := range keys {
		asks = append(asks, &si.Allocation{AllocationKey: k, ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)})
	}
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks})
}

func (r *bindRig) release(appID, key string, tt si.TerminationType) {
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Releases: &si.AllocationReleasesRequest{
		AllocationsToRelease: []*si.AllocationRelease{{PartitionName: "default", ApplicationID: appID, AllocationKey: key, TerminationType: tt}},
	}})
}

func (r *bindRig) releasedKeys() map[string]si.TerminationType {
	out := map[string]si.TerminationType{}
	for _, rel := range r.rec.released {
		out[rel.AllocationKey] = rel.TerminationType
	}
	return out
}

// Issue 14 item 1: the RM's own STOPPED_BY_RM releases are confirmed in
// AllocationResponse.released, for one key and for the whole application
// (its allocations; pending asks are not allocations).
func TestRMReleasesAreEchoed(t *testing.T) {
	r := newBindRig(t, "n1")
	r.ask("k1", "k2", "k3")
	r.cycle()
	r.ask("big")
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "huge", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(64000, 1<<30)},
	}})
	r.cycle()
	r.release("app1", "k1", si.TerminationType_STOPPED_BY_RM)
	r.cycle()
	got := r.releasedKeys()
	if len(got) != 1 || got["k1"] != si.TerminationType_STOPPED_BY_RM {
		t.Fatalf("released %v, want k1 STOPPED_BY_RM", got)
	}
	r.release("app1", "", si.TerminationType_STOPPED_BY_RM)
	r.cycle()
	got = r.releasedKeys()
	for _, k := range []string{"k1", "k2", "k3", "big"} {
		if got[k] != si.TerminationType_STOPPED_BY_RM {
			t.Errorf("%s: released %v, want STOPPED_BY_RM (all: %v)", k, got[k], got)
		}
	}
	if _, ok := got["huge"]; ok {
		t.Errorf("the pending ask huge was echoed as a released allocation")
	}
	if len(r.rec.released) != 4 {
		t.Errorf("%d releases echoed, want 4: %v", len(r.rec.released), r.rec.released)
	}
}

// Issue 14 item 5: a TIMEOUT release from the RM for a still-pending ask
// changes nothing; STOPPED_BY_RM removes it. Neither is echoed.
func TestRMTimeoutKeepsPendingAsk(t *testing.T) {
	r := newBindRig(t, "n1")
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "huge", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(64000, 1<<30)},
	}})
	r.cycle()
	r.release("app1", "huge", si.TerminationType_TIMEOUT)
	r.release("app1", "", si.TerminationType_TIMEOUT)
	r.cycle()
	pending := func() int {
		n := 0
		r.inspect(func(e *engine.Engine) {
			p, _ := e.Partition("rm1", "default")
			a, _ := p.App("app1")
			n = a.PendingCount()
		})
		return n
	}
	if n := pending(); n != 1 {
		t.Fatalf("after TIMEOUT releases %d asks pending, want 1", n)
	}
	r.release("app1", "huge", si.TerminationType_STOPPED_BY_RM)
	r.cycle()
	if n := pending(); n != 0 {
		t.Fatalf("after STOPPED_BY_RM %d asks pending, want 0", n)
	}
	if len(r.rec.released) != 0 {
		t.Errorf("asks echoed as released: %v", r.rec.released)
	}
}

// Issue 14 item 12: RemoveApplicationRequest releases the application's
// allocations (echoed with STOPPED_BY_RM) and removes it without
// Completing or Completed callbacks.
func TestRemoveApplicationQuietly(t *testing.T) {
	r := newBindRig(t, "n1")
	r.ask("k1", "k2")
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "huge", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(64000, 1<<30)},
	}})
	r.cycle()
	before := len(r.rec.updated)
	_ = r.s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", Remove: []*si.RemoveApplicationRequest{
		{ApplicationID: "app1", PartitionName: "default"},
	}})
	r.cycle()
	r.clk.Advance(time.Minute)
	r.cycle()
	got := r.releasedKeys()
	if len(r.rec.released) != 2 || got["k1"] != si.TerminationType_STOPPED_BY_RM || got["k2"] != si.TerminationType_STOPPED_BY_RM {
		t.Errorf("released %v, want k1 and k2 STOPPED_BY_RM", r.rec.released)
	}
	for _, u := range r.rec.updated[before:] {
		t.Errorf("callback after removal: %s %s", u.ApplicationID, u.State)
	}
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		if p.AppCount() != 0 {
			t.Errorf("%d applications left", p.AppCount())
		}
		q, _ := p.Tree().Queue("root.a")
		if q.Allocated.AnyPositive() || q.Pending.AnyPositive() || q.RunningApps != 0 {
			t.Errorf("root.a keeps allocated %v pending %v running %d", q.Allocated, q.Pending, q.RunningApps)
		}
	})
}

// Issue 14 item 15: UpdatedApplication.message carries the state machine's
// event name when the change has no reason of its own.
func TestAppUpdateMessageIsTheEvent(t *testing.T) {
	r := newBindRig(t, "n1")
	r.ask("k1")
	r.cycle()
	r.release("app1", "k1", si.TerminationType_STOPPED_BY_RM)
	r.cycle()
	want := map[string]string{"Accepted": "runApplication", "Running": "runApplication", "Completing": "completeApplication"}
	seen := 0
	for _, u := range r.rec.updated {
		if m, ok := want[u.State]; ok {
			seen++
			if u.Message != m {
				t.Errorf("%s: message %q, want %q", u.State, u.Message, m)
			}
		}
	}
	if seen != 3 {
		t.Errorf("saw %d of the 3 updates: %v", seen, r.rec.updated)
	}
}

// Issue 14 item 18: within one update the RM hears Accepted, then the
// allocations, then Running; an unknown action on a live node is not
// answered "node rejected".
func TestCallbackOrder(t *testing.T) {
	r := newBindRig(t, "n1")
	_ = r.s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app2", QueueName: "root.a", PartitionName: "default", Ugi: &si.UserGroupInformation{User: "bob"}},
	}})
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "b1", ApplicationID: "app2", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)},
	}})
	r.rec.order = nil
	r.cycle()
	got := strings.Join(r.rec.order, ", ")
	want := "accepted app2, state app2 Accepted, alloc b1, state app2 Running"
	if got != want {
		t.Errorf("callbacks %q, want %q", got, want)
	}
	// a recovered allocation of a new application: the same order
	_ = r.s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app3", QueueName: "root.a", PartitionName: "default", Ugi: &si.UserGroupInformation{User: "bob"}},
	}})
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "c1", ApplicationID: "app3", PartitionName: "default", NodeID: "n1", ResourcePerAlloc: res(1000, 1<<30)},
	}})
	r.rec.order = nil
	r.cycle()
	got = strings.Join(r.rec.order, ", ")
	want = "accepted app3, state app3 Accepted, alloc c1, state app3 Running"
	if got != want {
		t.Errorf("recovery callbacks %q, want %q", got, want)
	}
	r.rec.order = nil
	_ = r.s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{
		{NodeID: "n1", Action: si.NodeInfo_UNKNOWN_ACTION_FROM_RM},
		{NodeID: "n1", Action: si.NodeInfo_ActionFromRM(42)},
	}})
	r.cycle()
	if len(r.rec.order) != 0 {
		t.Errorf("unknown node actions on a live node answered %v", r.rec.order)
	}
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		if n, ok := p.Node("n1"); !ok || !n.Schedulable {
			t.Errorf("n1 changed by an unknown action")
		}
	})
}

// A change to a node the scheduler does not have (deleted, or never
// registered) is logged, not answered as a rejected node, as the
// reference does: the health check would count it as a failed node.
func TestUnknownNodeChangesNotRejected(t *testing.T) {
	r := newBindRig(t, "n1")
	r.rec.order = nil
	_ = r.s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{
		{NodeID: "ghost", Action: si.NodeInfo_UPDATE, SchedulableResource: res(1000, 1<<30)},
		{NodeID: "ghost", Action: si.NodeInfo_DRAIN_NODE},
		{NodeID: "ghost", Action: si.NodeInfo_DRAIN_TO_SCHEDULABLE},
		{NodeID: "ghost", Action: si.NodeInfo_DECOMISSION},
		{NodeID: "ghost", Action: si.NodeInfo_ActionFromRM(42)},
	}})
	r.cycle()
	if len(r.rec.order) != 0 {
		t.Errorf("changes to an unknown node answered %v", r.rec.order)
	}
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		if _, ok := p.Node("ghost"); ok {
			t.Errorf("an UPDATE created the unknown node")
		}
	})
	// a node that does not register is still rejected
	_ = r.s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{
		{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(1000, 1<<30)},
	}})
	r.cycle()
	if got := strings.Join(r.rec.order, ", "); got != "node-rejected n1" {
		t.Errorf("a duplicate node: %q, want node-rejected n1", got)
	}
}

// An RM that sends a pending ask again with a node (it bound the pod
// itself) gets it as an allocation on that node, confirmed as new, as the
// reference's "transitioning from requested to allocated"; an unknown node
// leaves the ask pending.
func TestPendingAskBoundByRM(t *testing.T) {
	r := newBindRig(t, "n1")
	big := func(node string) {
		_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
			{AllocationKey: "big", ApplicationID: "app1", PartitionName: "default", NodeID: node, ResourcePerAlloc: res(6000, 1<<30)},
		}})
	}
	big("")
	r.cycle()
	big("nowhere")
	r.cycle()
	if got := r.allocsOf("big"); len(got) != 0 {
		t.Fatalf("big allocated on an unknown node: %v", got)
	}
	big("n1")
	r.cycle()
	if got := r.allocsOf("big"); len(got) != 1 || got[0].NodeID != "n1" {
		t.Fatalf("big: %v, want one allocation on n1", got)
	}
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		a, _ := p.App("app1")
		if a.PendingCount() != 0 || a.AllocatedCount() != 1 {
			t.Errorf("app1: %d pending, %d allocated, want 0 and 1", a.PendingCount(), a.AllocatedCount())
		}
	})
}
