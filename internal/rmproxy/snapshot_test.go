package rmproxy

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/app"
)

func TestSnapshotManualGenerations(t *testing.T) {
	clk := clock.NewVirtual(time.Unix(1000, 0))
	s := NewManual(clk)
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{
		RmID: "rm1", Config: cfg, BuildInfo: map[string]string{"buildVersion": "1.2"},
	}, rec); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s1, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(s1.RMs) != 1 || s1.RMs[0].BuildInfo["buildVersion"] != "1.2" || s1.RMs[0].Registered != clk.Now() {
		t.Fatalf("RM info not in snapshot: %+v", s1.RMs)
	}
	if len(s1.RMs[0].ConfigYAML) == 0 || s1.RMs[0].Checksum == "" {
		t.Fatal("config text or checksum missing")
	}
	// nothing changed: the same snapshot, no build
	builds := s.snaps.builds.Load()
	s2, _ := s.Snapshot(ctx)
	if s2 != s1 || s.snaps.builds.Load() != builds {
		t.Fatal("unchanged state was rebuilt")
	}
	// a cycle with no work and nothing to schedule changes nothing
	s.Cycle()
	if s3, _ := s.Snapshot(ctx); s3 != s1 {
		t.Fatal("an idle cycle bumped the generation")
	}

	s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)}}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
		{ApplicationID: "bad", QueueName: "root.nope", Ugi: &si.UserGroupInformation{User: "bob"}},
	}})
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "a1", ApplicationID: "app1", ResourcePerAlloc: res(1000, 1<<30)},
		{AllocationKey: "big", ApplicationID: "app1", ResourcePerAlloc: res(8000, 1<<30)},
	}})
	s.Cycle()
	s4, _ := s.Snapshot(ctx)
	if s4.Generation <= s1.Generation {
		t.Fatalf("generation %d after changes, was %d", s4.Generation, s1.Generation)
	}
	p, ok := s4.Partition("default")
	if !ok {
		t.Fatal("no default partition")
	}
	a, ok := p.App("app1")
	if !ok || len(a.Allocations) != 1 || a.Allocations[0].NodeID != "n1" || len(a.Asks) != 1 {
		t.Fatalf("app1 = %+v", a)
	}
	// larger than the cluster, so the root's max (the cluster) stops it
	if w := a.Asks[0].Why; w.Kind != app.QueueMax || w.Object != "root" {
		t.Errorf("big ask reason %v, want QueueMax (root)", w)
	}
	n, _ := p.Node("n1")
	if len(n.Allocations) != 1 || n.Allocations[0] != a.Allocations[0] {
		t.Error("node and application do not share the allocation record")
	}
	r, ok := p.App("bad")
	if !ok || r.State != app.Rejected || r.Message == "" {
		t.Fatalf("rejected application not kept: %+v", r)
	}
	// the snapshot is a copy: later changes do not reach it
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Releases: &si.AllocationReleasesRequest{
		AllocationsToRelease: []*si.AllocationRelease{{ApplicationID: "app1", AllocationKey: "a1"}},
	}})
	s.Cycle()
	if len(a.Allocations) != 1 || len(n.Allocations) != 1 || p.Root.Allocated.IsZero() {
		t.Fatal("an old snapshot changed")
	}
	s5, _ := s.Snapshot(ctx)
	p5, _ := s5.Partition("default")
	if a5, _ := p5.App("app1"); len(a5.Allocations) != 0 {
		t.Fatal("new snapshot misses the release")
	}
}

// TestSnapshotCoalesces has many readers ask while the service schedules:
// each generation is built at most once, however many readers wait.
func TestSnapshotCoalesces(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	var nodes []*si.NodeInfo
	for i := range 20 {
		nodes = append(nodes, &si.NodeInfo{NodeID: fmt.Sprint("n", i), Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)})
	}
	s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: nodes})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
	}})
	ctx := context.Background()
	if _, err := s.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	reads := 0
	gens := map[uint64]bool{}
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := uint64(0)
			for {
				snap, err := s.Snapshot(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				if snap.Generation < last {
					t.Errorf("generation went back from %d to %d", last, snap.Generation)
				}
				last = snap.Generation
				mu.Lock()
				reads++
				gens[snap.Generation] = true
				mu.Unlock()
				p, _ := snap.Partition("default")
				if a, ok := p.App("app1"); ok && len(a.Allocations) == 40 {
					return
				}
				time.Sleep(100 * time.Microsecond)
			}
		}()
	}
	for i := range 40 {
		s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
			{AllocationKey: fmt.Sprint("k", i), ApplicationID: "app1", ResourcePerAlloc: res(100, 1<<20)},
		}})
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
	builds := s.snaps.builds.Load()
	t.Logf("%d reads, %d builds, %d generations seen, generation %d", reads, builds, len(gens), s.Generation())
	if builds > s.Generation() {
		t.Errorf("%d builds for %d generations", builds, s.Generation())
	}
	if len(gens) < 2 || int(builds) >= reads/4 {
		t.Errorf("%d builds for %d reads of %d generations: requests are not coalesced", builds, reads, len(gens))
	}
	rec.await(t, "allocations", func() bool { return len(rec.allocs) == 40 })
	final, _ := s.Snapshot(ctx)
	p, _ := final.Partition("default")
	if a, _ := p.App("app1"); len(a.Allocations) != 40 {
		t.Errorf("final snapshot has %d allocations, want 40", len(a.Allocations))
	}
}

func TestSnapshotMaxAge(t *testing.T) {
	s := NewManual(clock.NewVirtual(time.Unix(1000, 0)))
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, newRecorder()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, _ := s.Snapshot(ctx)
	s.SetSnapshotMaxAge(time.Hour)
	s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)}}})
	s.Cycle()
	if got, _ := s.Snapshot(ctx); got != first {
		t.Fatal("a young snapshot was rebuilt despite the maximum age")
	}
	s.SetSnapshotMaxAge(0)
	got, _ := s.Snapshot(ctx)
	if got == first || got.Generation != s.Generation() {
		t.Fatal("without a maximum age the snapshot is not current")
	}
	if p, _ := got.Partition("default"); len(p.Nodes) != 1 {
		t.Fatal("new node missing")
	}
}
