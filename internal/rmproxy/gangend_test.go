package rmproxy

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

// gang adds application id with a placeholder ask of n placeholders of
// 1 core, gang style style, and a 10 s placeholder timeout.
func (r *bindRig) gang(id string, n int64, style string) {
	_ = r.s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{{
		ApplicationID: id, QueueName: "root.a", PartitionName: "default", Ugi: &si.UserGroupInformation{User: "alice"},
		PlaceholderAsk: res(1000*n, n<<20), GangSchedulingStyle: style, ExecutionTimeoutMilliSeconds: 10_000,
	}}})
}

func (r *bindRig) placeholders(appID string, keys ...string) {
	var asks []*si.Allocation
	for _, k := range keys {
		asks = append(asks, &si.Allocation{AllocationKey: k, ApplicationID: appID, PartitionName: "default",
			ResourcePerAlloc: res(1000, 1<<20), Placeholder: true, TaskGroupName: "tg"})
	}
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks})
}

func (r *bindRig) stateOf(appID string) string {
	var s string
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		if a, ok := p.App(appID); ok {
			s = a.State.String()
		}
	})
	return s
}

// A gang application that ends with a placeholder left: the RM hears of
// the placeholder's release (TIMEOUT) while the application is still
// Completing, and of Completed only after it confirmed the release (the
// Kubernetes shim forgets a Completed application at once and then drops
// the release, which would leave the placeholder's pod running). Until
// then the placeholder keeps its room. The confirmation is not echoed.
func TestGangCompletedAfterPlaceholderRelease(t *testing.T) {
	r := newBindRig(t, "n1")
	r.gang("g", 2, "Soft")
	r.placeholders("g", "ph1", "ph2")
	r.cycle()
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "real", ApplicationID: "g", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<20), TaskGroupName: "tg"},
	}})
	r.cycle()
	r.release("g", "ph1", si.TerminationType_PLACEHOLDER_REPLACED)
	r.cycle()
	r.release("g", "real", si.TerminationType_STOPPED_BY_RM)
	r.cycle()
	if s := r.stateOf("g"); s != "Completing" {
		t.Fatalf("g is %s, want Completing", s)
	}
	r.rec.order = nil
	r.clk.Advance(31 * time.Second)
	r.cycle()
	if got := strings.Join(r.rec.order, ", "); got != "released ph2" {
		t.Fatalf("after the Completing timer the RM heard %q, want %q", got, "released ph2")
	}
	r.clk.Advance(time.Hour)
	r.cycle()
	if s := r.stateOf("g"); s != "Completing" {
		t.Fatalf("before the RM confirmed, g is %s, want Completing", s)
	}
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		n, _ := p.Node("n1")
		if n.Allocated.IsZero() {
			t.Errorf("the placeholder's room was freed before the RM confirmed its release")
		}
	})
	r.rec.order = nil
	r.release("g", "ph2", si.TerminationType_TIMEOUT)
	r.cycle()
	if got := strings.Join(r.rec.order, ", "); got != "state g Completed" {
		t.Errorf("after the confirmation the RM heard %q, want %q", got, "state g Completed")
	}
	r.inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		n, _ := p.Node("n1")
		if !n.Allocated.IsZero() {
			t.Errorf("n1 keeps %v allocated after the confirmation", n.Allocated)
		}
	})
}

// A Hard gang that never fit times out: the RM hears Failing, then the
// release of every placeholder's pod, then Failed; the shim handles a
// release only while the application is not Failed, so it posts the
// placeholders' timeout events and deletes their pods.
func TestHardGangFailedAfterReleases(t *testing.T) {
	r := newBindRig(t, "n1")
	r.gang("h", 8, "Hard")
	r.placeholders("h", "hp1", "hp2", "hp3", "hp4", "hp5", "hp6", "hp7", "hp8")
	r.cycle()
	r.rec.order = nil
	r.clk.Advance(11 * time.Second)
	r.cycle()
	got := strings.Join(r.rec.order, ", ")
	want := "state h Failing, released hp1, released hp2, released hp3, released hp4, released hp5, released hp6, released hp7, released hp8, state h Failed"
	if got != want {
		t.Errorf("on the timeout the RM heard\n %q, want\n %q", got, want)
	}
}

// A Hard gang with a placeholder placed: Failing, the placeholder's
// release, and Failed only after the RM confirmed it (with the type the
// Kubernetes shim uses when it cleans up a failed application's
// placeholders, STOPPED_BY_RM, not echoed back).
func TestHardGangFailedAfterConfirmation(t *testing.T) {
	r := newBindRig(t, "n1")
	r.gang("h", 2, "Hard")
	r.placeholders("h", "hp1", "hp2")
	r.release("h", "hp2", si.TerminationType_STOPPED_BY_RM)
	r.cycle()
	if s := r.stateOf("h"); s != "Accepted" {
		t.Fatalf("h is %s, want Accepted with one placeholder", s)
	}
	r.rec.order = nil
	r.clk.Advance(11 * time.Second)
	r.cycle()
	if got, want := strings.Join(r.rec.order, ", "), "state h Failing, released hp1"; got != want {
		t.Fatalf("on the timeout the RM heard %q, want %q", got, want)
	}
	r.rec.order = nil
	r.release("h", "hp1", si.TerminationType_STOPPED_BY_RM)
	r.cycle()
	if got, want := strings.Join(r.rec.order, ", "), "state h Failed"; got != want {
		t.Errorf("after the confirmation the RM heard %q, want %q", got, want)
	}
}
