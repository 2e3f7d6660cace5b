package rmproxy

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/resource"
)

// TestHooks checks what the hooks see on a manual service: the extra
// configuration on registration and update, step timings, tallies of
// outcomes (recovered allocations apart) and every event, and rejections
// logged at debug level.
func TestHooks(t *testing.T) {
	s := NewManual(clock.NewVirtual(time.Unix(100, 0)))
	var logs bytes.Buffer
	var extras []map[string]string
	var steps, made int
	var tally Tally
	var evs []event.Record
	s.SetHooks(Hooks{
		Extra: func(_ string, e map[string]string) { extras = append(extras, e) },
		Step:  func(d time.Duration, n int) { steps++; made += n },
		Tally: func(t *Tally) {
			tally.Allocated += t.Allocated
			tally.Released += t.Released
			tally.AppsSubmitted += t.AppsSubmitted
			tally.AppsAccepted += t.AppsAccepted
			tally.AppsRejected += t.AppsRejected
			tally.NodesRemoved += t.NodesRemoved
		},
		Event:  func(_ string, _ *resource.Registry, r *event.Record) { evs = append(evs, *r) },
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm", Config: cfg, ExtraConfig: map[string]string{"log.level": "debug"}}, rec); err != nil {
		t.Fatal(err)
	}
	s.UpdateNode(&si.NodeRequest{RmID: "rm", Nodes: []*si.NodeInfo{
		{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)},
		{NodeID: "n2", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)}}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
		{ApplicationID: "app2", QueueName: "root.nope", Ugi: &si.UserGroupInformation{User: "bob"}}}})
	s.Cycle()
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Allocations: []*si.Allocation{
		{AllocationKey: "a1", ApplicationID: "app1", ResourcePerAlloc: res(1000, 1<<30)},
		{AllocationKey: "a2", ApplicationID: "app1", ResourcePerAlloc: res(1000, 1<<30)},
		{AllocationKey: "held", ApplicationID: "app1", NodeID: "n2", ResourcePerAlloc: res(1000, 1<<30)}}})
	s.Cycle()
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Releases: &si.AllocationReleasesRequest{AllocationsToRelease: []*si.AllocationRelease{
		{ApplicationID: "app1", AllocationKey: "a1"}}}})
	s.UpdateNode(&si.NodeRequest{RmID: "rm", Nodes: []*si.NodeInfo{{NodeID: "n1", Action: si.NodeInfo_DECOMISSION}}})
	s.Cycle()
	if err := s.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "rm", Config: cfg, ExtraConfig: map[string]string{"log.level": "info"}}); err != nil {
		t.Fatal(err)
	}

	if len(extras) != 2 || extras[0]["log.level"] != "debug" || extras[1]["log.level"] != "info" {
		t.Errorf("extra hook saw %v", extras)
	}
	if steps != 3 || made != 2 {
		t.Errorf("step hook: %d steps, %d made", steps, made)
	}
	// a1 and a2 allocated by the scheduler, "held" recovered; a1 released
	// by the RM, a2 by the node's removal (if it was on n1)
	if tally.Allocated != 2 || tally.AppsSubmitted != 2 || tally.AppsAccepted != 1 || tally.AppsRejected != 1 || tally.NodesRemoved != 1 {
		t.Errorf("tally %+v", tally)
	}
	if tally.Released < 1 {
		t.Errorf("RM release not counted: %+v", tally)
	}
	allocEvents := 0
	for _, e := range evs {
		if e.Type == event.App && e.Detail == event.AppAlloc {
			allocEvents++
		}
	}
	if allocEvents < 2 {
		t.Errorf("event hook saw %d APP_ALLOC events, want one per decision at least", allocEvents)
	}
	out := logs.String()
	for _, want := range []string{"resource manager registered", "application rejected", "app=app2", "configuration updated"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}
