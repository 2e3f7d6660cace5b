package serve

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// TestRegistrationPolicy is issue #18 item 5 over gRPC: with an allow-list
// only the listed RMs register, an invalid rmID is refused with a reason,
// and the RM limit refuses a new ID past it.
func TestRegistrationPolicy(t *testing.T) {
	s := start(t, Options{Logs: quiet(), AllowedRMs: []string{"prod", "staging", "qa"}, MaxRMs: 2})
	c := dial(t, s.GRPCAddr(), "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	register := func(id string) error {
		return c.Register(ctx, &si.RegisterResourceManagerRequest{RmID: id, Config: testConfig}, newRecorder())
	}
	must(t, register("prod"))
	if err := register("intruder"); err == nil || !strings.Contains(err.Error(), "PermissionDenied") {
		t.Errorf("intruder: %v, want PermissionDenied", err)
	}
	must(t, register("staging"))
	if err := register("qa"); err == nil || !strings.Contains(err.Error(), "ResourceExhausted") || !strings.Contains(err.Error(), "limit is 2") {
		t.Errorf("third RM: %v, want ResourceExhausted at the limit of 2", err)
	}
	must(t, register("prod")) // registering again is not a new RM

	if _, err := Start(Options{Logs: quiet(), RESTAddr: "127.0.0.1:0", GRPCAddr: "127.0.0.1:0", AllowedRMs: []string{"bad id"}}); err == nil || !strings.Contains(err.Error(), "rmID") {
		t.Errorf("allow-list with an invalid ID: %v, want an error", err)
	}
	open := start(t, Options{Logs: quiet()})
	oc := dial(t, open.GRPCAddr(), "")
	if err := oc.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "a/b"}, newRecorder()); err == nil || !strings.Contains(err.Error(), "InvalidArgument") || !strings.Contains(err.Error(), "rmID") {
		t.Errorf("rmID a/b: %v, want InvalidArgument naming the rmID", err)
	}
}
