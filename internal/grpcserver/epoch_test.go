package grpcserver

import (
	"context"
	"strconv"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/cbwire"
)

// registerEpoch registers rmID and returns the registration number the
// server put in the response header.
func registerEpoch(t *testing.T, c si.SchedulerClient, rmID string) string {
	t.Helper()
	var header metadata.MD
	if _, err := c.RegisterResourceManager(ctx(t), &si.RegisterResourceManagerRequest{RmID: rmID}, grpc.Header(&header)); err != nil {
		t.Fatal(err)
	}
	v := header.Get(cbwire.RegistrationHeader)
	if len(v) != 1 {
		t.Fatalf("response header %s = %q, want one registration number", cbwire.RegistrationHeader, v)
	}
	if n, err := strconv.ParseUint(v[0], 10, 64); err != nil || n == 0 {
		t.Fatalf("registration number %q", v[0])
	}
	return v[0]
}

// withEpoch is a context whose streams say they belong to registration
// epoch ("" for none).
func withEpoch(t *testing.T, epoch string) context.Context {
	c, cancel := context.WithCancel(ctx(t))
	t.Cleanup(cancel)
	if epoch != "" {
		c = metadata.AppendToOutgoingContext(c, cbwire.RegistrationHeader, epoch)
	}
	return c
}

// A stream opened for an earlier registration that reaches the server
// after the RM registered again (a client's old stream, late under load)
// is refused: it neither replaces the new registration's stream nor, when
// its client drops it, pauses the RM. A stream that names the current
// registration, or none (a client that does not know the header), attaches.
func TestStreamOfAnEarlierRegistration(t *testing.T) {
	h := start(t, Options{})
	c, _ := h.dial(t)
	first := registerEpoch(t, c, "rm1")
	second := registerEpoch(t, c, "rm1")
	if first == second {
		t.Fatalf("two registrations numbered %s", first)
	}

	cur, err := c.UpdateNode(withEpoch(t, second))
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.Send(&si.NodeRequest{RmID: "rm1"}); err != nil {
		t.Fatal(err)
	}
	h.awaitState(t, "rm1", RMRunning, 1)

	oldCtx, dropOld := context.WithCancel(withEpoch(t, first))
	old, err := c.UpdateNode(oldCtx)
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Send(&si.NodeRequest{RmID: "rm1"}); err != nil {
		t.Fatal(err)
	}
	_, err = old.Recv()
	wantCode(t, "stream of the earlier registration", err, codes.Aborted)
	dropOld()
	// the current stream is still attached and the RM running
	if err := cur.Send(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n1", Action: si.NodeInfo_CREATE}}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool {
		h.api.mu.Lock()
		defer h.api.mu.Unlock()
		return len(h.api.nodes) == 1
	}, "the current stream's request forwarded")
	h.awaitState(t, "rm1", RMRunning, 1)

	// a stream that names no registration attaches, as any SI client's
	plain, err := c.UpdateAllocation(withEpoch(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Send(&si.AllocationRequest{RmID: "rm1"}); err != nil {
		t.Fatal(err)
	}
	h.awaitState(t, "rm1", RMRunning, 2)

	// garbage in the header is refused with the reason
	bad, err := c.UpdateApplication(withEpoch(t, "x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.Send(&si.ApplicationRequest{RmID: "rm1"}); err != nil {
		t.Fatal(err)
	}
	_, err = bad.Recv()
	wantCode(t, "stream with a malformed registration number", err, codes.InvalidArgument)
}
