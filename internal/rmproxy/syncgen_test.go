package rmproxy

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/config"
)

// TestSnapshotAfterSyncCall: a snapshot asked for right after a
// synchronous call (a reload) shows what the call did.
func TestSnapshotAfterSyncCall(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm", PolicyGroup: "queues", Config: cfg}, callback.Nop{}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 200 {
		next := fmt.Sprintf("%s\n# reload %d\n", cfg, i)
		if err := s.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "rm", PolicyGroup: "queues", Config: next}); err != nil {
			t.Fatal(err)
		}
		snap, err := s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rm, ok := snap.RM("rm")
		if !ok || rm.Checksum != config.ChecksumOf([]byte(next)) {
			t.Fatalf("reload %d: the snapshot after the call has the previous configuration", i)
		}
	}
}
