package grpcserver

import (
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
)

// rawStreams opens the three streams of rm1 and greets on each.
func rawStreams(t *testing.T, h *harness) (
	alloc interface {
		Send(*si.AllocationRequest) error
	},
	apps interface {
		Send(*si.ApplicationRequest) error
	},
	nodes interface{ Send(*si.NodeRequest) error },
) {
	t.Helper()
	c, _ := h.dial(t)
	h.register(t, c, "rm1")
	a, err := c.UpdateAllocation(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.UpdateApplication(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.UpdateNode(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{a.Send(&si.AllocationRequest{RmID: "rm1"}), p.Send(&si.ApplicationRequest{RmID: "rm1"}), n.Send(&si.NodeRequest{RmID: "rm1"})} {
		if err != nil {
			t.Fatal(err)
		}
	}
	h.awaitState(t, "rm1", RMRunning, 3)
	return a, p, n
}

func ask(key, appID string) *si.Allocation {
	return &si.Allocation{AllocationKey: key, ApplicationID: appID}
}

func newApp(id string) *si.ApplicationRequest {
	return &si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{{ApplicationID: id}}}
}

// forwarded lists what reached the API as "app:ID", "ask:KEY" and
// "release:KEY", in order per stream kind: allocation items first.
func (h *harness) forwardedAllocs() []string {
	h.api.mu.Lock()
	defer h.api.mu.Unlock()
	var out []string
	for _, r := range h.api.allocs {
		for _, x := range r.Allocations {
			out = append(out, "ask:"+x.AllocationKey)
		}
		for _, x := range r.Releases.GetAllocationsToRelease() {
			out = append(out, "release:"+x.AllocationKey)
		}
	}
	return out
}

func (h *harness) parked() int {
	st, _ := h.status("rm1")
	return st.Parked
}

func (h *harness) awaitParked(t *testing.T, n int) {
	t.Helper()
	eventually(t, func() bool { return h.parked() == n }, "%d items parked (have %d)", n, h.parked())
}

func (h *harness) awaitForwarded(t *testing.T, want ...string) {
	t.Helper()
	eventually(t, func() bool { return equal(h.forwardedAllocs(), want) }, "forwarded %q (have %q)", want, h.forwardedAllocs())
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// An ask of an application not sent yet waits for it, a later release of
// that ask waits behind it, and an ask of a known application overtakes.
func TestParkedUntilApplication(t *testing.T) {
	h := start(t, Options{})
	alloc, apps, _ := rawStreams(t, h)
	if err := apps.Send(newApp("known")); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { h.api.mu.Lock(); defer h.api.mu.Unlock(); return len(h.api.apps) == 1 }, "app forwarded")
	send := func(r *si.AllocationRequest) {
		t.Helper()
		r.RmID = "rm1"
		if err := alloc.Send(r); err != nil {
			t.Fatal(err)
		}
	}
	send(&si.AllocationRequest{Allocations: []*si.Allocation{ask("a1", "late"), ask("k1", "known")}})
	h.awaitForwarded(t, "ask:k1")
	h.awaitParked(t, 1)
	send(&si.AllocationRequest{Releases: &si.AllocationReleasesRequest{AllocationsToRelease: []*si.AllocationRelease{
		{ApplicationID: "late", AllocationKey: "a1", TerminationType: si.TerminationType_STOPPED_BY_RM},
		{ApplicationID: "known", AllocationKey: "k1", TerminationType: si.TerminationType_STOPPED_BY_RM},
	}}})
	h.awaitForwarded(t, "ask:k1", "release:k1")
	h.awaitParked(t, 2)
	send(&si.AllocationRequest{Allocations: []*si.Allocation{ask("a2", "late")}})
	h.awaitParked(t, 3)
	if err := apps.Send(newApp("late")); err != nil {
		t.Fatal(err)
	}
	h.awaitForwarded(t, "ask:k1", "release:k1", "ask:a1", "release:a1", "ask:a2")
	if n := h.parked(); n != 0 {
		t.Fatalf("%d items still parked", n)
	}
	// the release went after its ask: in a request of its own or after the
	// ask in the same one, never before it
	h.api.mu.Lock()
	defer h.api.mu.Unlock()
	if got := len(h.api.allocs); got != 4 {
		t.Errorf("%d allocation requests forwarded, want 4 (k1, release k1, a1+release, a2)", got)
	}
}

// An allocation on a node not created yet waits for the node; a foreign
// allocation needs only its node.
func TestParkedUntilNode(t *testing.T) {
	h := start(t, Options{})
	alloc, apps, nodes := rawStreams(t, h)
	if err := apps.Send(newApp("app1")); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { h.api.mu.Lock(); defer h.api.mu.Unlock(); return len(h.api.apps) == 1 }, "app forwarded")
	x := ask("r1", "app1")
	x.NodeID = "n1"
	f := &si.Allocation{AllocationKey: "f1", NodeID: "n1", AllocationTags: map[string]string{common.Foreign: common.AllocTypeDefault}}
	if err := alloc.Send(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{x, f}}); err != nil {
		t.Fatal(err)
	}
	h.awaitParked(t, 2)
	if err := nodes.Send(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n1", Action: si.NodeInfo_CREATE}}}); err != nil {
		t.Fatal(err)
	}
	h.awaitForwarded(t, "ask:r1", "ask:f1")
}

// A parked item waits ParkTimeout at most, then goes as it is (for the
// scheduler to reject); past ParkLimit the oldest goes at once.
func TestParkBounds(t *testing.T) {
	clk := clock.NewVirtual(time.Unix(1000, 0))
	h := start(t, Options{Clock: clk, ParkTimeout: 3 * time.Second, ParkLimit: 2})
	alloc, _, _ := rawStreams(t, h)
	for i, key := range []string{"a1", "a2"} {
		if err := alloc.Send(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{ask(key, "ghost"+key)}}); err != nil {
			t.Fatal(err)
		}
		h.awaitParked(t, i+1)
		clk.Advance(time.Second)
	}
	if got := h.timers.active(); len(got) != 1 || got[0] != 3*time.Second {
		t.Fatalf("timers %v, want one of 3s for the oldest item", got)
	}
	// a third item exceeds the limit: the oldest goes at once
	if err := alloc.Send(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{ask("a3", "ghost3")}}); err != nil {
		t.Fatal(err)
	}
	h.awaitForwarded(t, "ask:a1")
	h.awaitParked(t, 2)
	// a2 was parked at 1001, a3 at 1002: at 1004 only a2's time is up
	clk.Advance(2 * time.Second)
	h.timers.fire()
	h.awaitForwarded(t, "ask:a1", "ask:a2")
	if n := h.parked(); n != 1 {
		t.Fatalf("%d parked, want 1 (a3)", n)
	}
	clk.Advance(time.Second)
	h.timers.fire()
	h.awaitForwarded(t, "ask:a1", "ask:a2", "ask:a3")
	if n := h.parked(); n != 0 || len(h.timers.active()) != 0 {
		t.Fatalf("%d parked, timers %v: want none", n, h.timers.active())
	}
}

// A new registration drops what the old one parked: nothing of the old
// state reaches the new one.
func TestParkedDroppedOnRegister(t *testing.T) {
	h := start(t, Options{})
	alloc, _, _ := rawStreams(t, h)
	if err := alloc.Send(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{ask("a1", "app1")}}); err != nil {
		t.Fatal(err)
	}
	h.awaitParked(t, 1)
	c, _ := h.dial(t)
	h.register(t, c, "rm1")
	if n := h.parked(); n != 0 {
		t.Fatalf("%d parked after a new registration", n)
	}
	_, apps, _ := rawStreams(t, h)
	if err := apps.Send(newApp("app1")); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { h.api.mu.Lock(); defer h.api.mu.Unlock(); return len(h.api.apps) == 1 }, "app forwarded")
	h.timers.fire()
	if got := h.forwardedAllocs(); len(got) != 0 {
		t.Fatalf("the old registration's ask was forwarded: %q", got)
	}
}
