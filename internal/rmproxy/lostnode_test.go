package rmproxy

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

// lostNodeRig places pod-1 of app1 on n1, then adds n2 and decommissions
// n1 as the Kubernetes shim does when a node is deleted while it binds the
// pod there.
func lostNodeRig(t *testing.T, hooks *Hooks) *bindRig {
	t.Helper()
	r := newBindRig(t, "n1")
	if hooks != nil {
		r.s.SetHooks(*hooks)
	}
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{{
		AllocationKey: "pod-1", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30),
		Priority: 3, AllocationTags: map[string]string{"kubernetes.io/meta/podName": "pod-1"},
	}}})
	r.cycle()
	if got := r.allocsOf("pod-1"); len(got) != 1 || got[0].NodeID != "n1" {
		t.Fatalf("pod-1 allocations %v, want one on n1", got)
	}
	_ = r.s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{
		{NodeID: "n2", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)},
		{NodeID: "n1", Action: si.NodeInfo_DECOMISSION},
	}})
	r.cycle()
	if len(r.rec.released) != 1 || r.rec.released[0].AllocationKey != "pod-1" ||
		r.rec.released[0].TerminationType != si.TerminationType_STOPPED_BY_RM {
		t.Fatalf("released %v, want pod-1 stopped by the RM", r.rec.released)
	}
	return r
}

// The bug of the Kubernetes node-delete scenario: the shim's bind of pod-1
// fails after its node was removed, and it waits for a new allocation of
// the same key. It gets one, on a live node; the release is counted once.
func TestFailedBindingAfterNodeRemovedPlacesAgain(t *testing.T) {
	var logs bytes.Buffer
	released, allocated := 0, 0
	r := lostNodeRig(t, &Hooks{
		Tally:  func(t *Tally) { released += t.Released; allocated += t.Allocated },
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	r.clk.Advance(90 * time.Second) // the shim's bind retries
	r.failBinding("app1", "pod-1")
	r.cycle()
	got := r.allocsOf("pod-1")
	if len(got) != 2 || got[1].NodeID != "n2" {
		t.Fatalf("pod-1 allocations %v, want a second one on n2", got)
	}
	if got[1].Priority != 3 || got[1].AllocationTags["kubernetes.io/meta/podName"] != "pod-1" ||
		got[1].ResourcePerAlloc.Resources["vcore"].Value != 1000 {
		t.Errorf("the new allocation lost the ask's properties: %v", got[1])
	}
	if len(r.rec.released) != 1 || len(r.rec.rejAlloc) != 0 {
		t.Errorf("released %v, rejected %v; want only the node's release", r.rec.released, r.rec.rejAlloc)
	}
	if released != 1 || allocated != 2 {
		t.Errorf("tally: %d released, %d allocated; want 1, 2", released, allocated)
	}
	out := logs.String()
	if !strings.Contains(out, "released with its node") || !strings.Contains(out, "node=n1") || strings.Contains(out, "failed binding ignored") {
		t.Errorf("log:\n%s", out)
	}
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		a, _ := p.App("app1")
		if a.AllocatedCount() != 1 || a.PendingCount() != 0 || a.State != app.Running {
			t.Errorf("app1 %s: %d allocated, %d pending; want Running, 1, 0", a.State, a.AllocatedCount(), a.PendingCount())
		}
	})
}

// app1's only allocation went with its node: it is Completing, and the RM
// does not hear that it completed while the failed binding may still come
// (the shim forgets a Completed application and its pods at once).
func TestFailedBindingAfterNodeRemovedAppNotCompleted(t *testing.T) {
	r := lostNodeRig(t, nil)
	for range 15 { // 150 s: five times the Completing timeout
		r.clk.Advance(10 * time.Second)
		r.s.Cycle()
	}
	for _, u := range r.rec.updated {
		if u.ApplicationID == "app1" && u.State == app.Completed.String() {
			t.Fatalf("app1 reported Completed while pod-1 may come back")
		}
	}
	r.failBinding("app1", "pod-1")
	r.cycle()
	if got := r.allocsOf("pod-1"); len(got) != 2 || got[1].NodeID != "n2" {
		t.Fatalf("pod-1 allocations %v, want a second one on n2", got)
	}
	last := ""
	for _, u := range r.rec.updated {
		if u.ApplicationID == "app1" {
			last = u.State
		}
	}
	if last != app.Running.String() {
		t.Errorf("app1 last reported %s, want Running", last)
	}
}

// The RM released pod-1 (the pod was deleted): a failed binding reported
// later is ignored; so it is after the record's time.
func TestFailedBindingAfterNodeRemovedForgotten(t *testing.T) {
	for _, how := range []string{"released", "app released", "expired"} {
		r := lostNodeRig(t, nil)
		switch how {
		case "released", "app released":
			key := "pod-1"
			if how == "app released" {
				key = ""
			}
			_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Releases: &si.AllocationReleasesRequest{
				AllocationsToRelease: []*si.AllocationRelease{{PartitionName: "default", ApplicationID: "app1", AllocationKey: key,
					TerminationType: si.TerminationType_STOPPED_BY_RM}},
			}})
			r.cycle()
		case "expired":
			r.clk.Advance(5 * time.Minute)
			r.s.Cycle()
		}
		r.failBinding("app1", "pod-1")
		r.cycle()
		if got := r.allocsOf("pod-1"); len(got) != 1 {
			t.Errorf("%s: pod-1 allocated %d times, want once", how, len(got))
		}
		if len(r.rec.rejAlloc) != 0 || len(r.rec.released) != 1 {
			t.Errorf("%s: rejected %v, released %v", how, r.rec.rejAlloc, r.rec.released)
		}
	}
}

// Bad input: failed bindings of keys never known, in a flood, change
// nothing and leave nothing recorded.
func TestFailedBindingFloodOfUnknownKeys(t *testing.T) {
	r := lostNodeRig(t, nil)
	for round := range 5 {
		var rels []*si.AllocationRelease
		for i := range 2000 {
			rels = append(rels,
				&si.AllocationRelease{PartitionName: "default", ApplicationID: "app1", AllocationKey: fmt.Sprint("ghost-", round, "-", i),
					TerminationType: si.TerminationType_SCHEDULING_FAILED_ON_RM},
				&si.AllocationRelease{PartitionName: "default", ApplicationID: fmt.Sprint("noapp-", i), AllocationKey: "pod-1",
					TerminationType: si.TerminationType_SCHEDULING_FAILED_ON_RM})
		}
		if err := r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Releases: &si.AllocationReleasesRequest{AllocationsToRelease: rels}}); err != nil {
			t.Fatal(err)
		}
		r.cycle()
	}
	if len(r.rec.allocs) != 1 || len(r.rec.rejAlloc) != 0 || len(r.rec.released) != 1 {
		t.Errorf("%d allocations, %d rejected, %d released; want 1, 0, 1", len(r.rec.allocs), len(r.rec.rejAlloc), len(r.rec.released))
	}
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		if live, _ := p.LostCount(); live != 1 {
			t.Errorf("%d records, want pod-1's only", live)
		}
		if n := p.AppCount(); n != 1 {
			t.Errorf("%d applications, want 1", n)
		}
		a, _ := p.App("app1")
		if a.PendingCount() != 0 {
			t.Errorf("%d pending asks, want 0", a.PendingCount())
		}
	})
	// pod-1's own report still works
	r.failBinding("app1", "pod-1")
	r.cycle()
	if got := r.allocsOf("pod-1"); len(got) != 2 {
		t.Errorf("pod-1 allocated %d times, want twice", len(got))
	}
}
