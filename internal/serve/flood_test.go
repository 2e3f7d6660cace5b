package serve

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// TestFloodedRegistrationsExpire is issue 38 item 7 over gRPC: a client
// registers random rmIDs up to the limit and goes away without opening a
// stream; a new RM is refused until the junk registrations expire (60 s
// on the scheduler's clock) and registers then, while an RM that is
// connected and holds a node stays.
func TestFloodedRegistrationsExpire(t *testing.T) {
	clk := clock.NewVirtual(time.Unix(1_000_000, 0))
	s := start(t, Options{Clock: clk, MaxRMs: 4})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	steady := dial(t, s.GRPCAddr(), "")
	rec := newRecorder()
	must(t, steady.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "steady", Config: testConfig}, rec))
	must(t, steady.UpdateNode(nodes("steady", "n1")))
	rec.await(t, "steady's node", func() bool { return rec.accNodes["n1"] })

	conn, err := grpc.NewClient(s.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	must(t, err)
	flood := si.NewSchedulerClient(conn)
	for i := range 3 {
		if _, err := flood.RegisterResourceManager(ctx, &si.RegisterResourceManagerRequest{RmID: fmt.Sprintf("junk-%d", i)}); err != nil {
			t.Fatalf("junk registration %d: %v", i, err)
		}
	}
	if _, err := flood.RegisterResourceManager(ctx, &si.RegisterResourceManagerRequest{RmID: "junk-3"}); err == nil || !strings.Contains(err.Error(), "ResourceExhausted") {
		t.Fatalf("registration past the limit: %v, want ResourceExhausted", err)
	}
	must(t, conn.Close())

	prod := dial(t, s.GRPCAddr(), "")
	register := func() error {
		return prod.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "prod", Config: testConfig}, newRecorder())
	}
	if err := register(); err == nil || !strings.Contains(err.Error(), "ResourceExhausted") {
		t.Fatalf("new RM while the junk is fresh: %v, want ResourceExhausted", err)
	}
	clk.Advance(rmproxy.DefaultRMExpiry)
	must(t, register())

	var ids []string
	must(t, s.svc.Inspect(func(e *engine.Engine) { ids = e.RMs() }))
	if got := strings.Join(ids, " "); got != "prod steady" {
		t.Errorf("registered RMs %q, want %q", got, "prod steady")
	}
	// the steady RM's streams still work
	must(t, steady.UpdateNode(nodes("steady", "n2")))
	rec.await(t, "steady's second node", func() bool { return rec.accNodes["n2"] })
}
