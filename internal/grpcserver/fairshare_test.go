package grpcserver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/client"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/grpcserver"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// fairCfg turns fair-share preemption on at root, with weights a:b 3:1.
const fairCfg = `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        properties: {paddock.fairshare.preemption: enabled}
        queues:
          - name: a
            properties: {paddock.fairshare.weight: "3", preemption.delay: 1ms}
          - name: b
            properties: {preemption.delay: 1ms}
`

// rmSide is what the scenario needs of the scheduler: the SI's update
// calls, which the in-process service and the gRPC client both have.
type rmSide interface {
	UpdateAllocation(*si.AllocationRequest) error
	UpdateApplication(*si.ApplicationRequest) error
	UpdateNode(*si.NodeRequest) error
}

// fairScenario: b fills four 1-vcore nodes, then a (weight 3) asks for
// all of them. a reclaims 3 of b's 4 allocations, each release saying why,
// and is placed once the RM confirms them; b keeps its quarter.
func fairScenario(t *testing.T, s rmSide, rec *recorder) {
	four := nodes(4)
	for _, n := range four.Nodes {
		n.SchedulableResource = res(1000, 1<<30)
	}
	must(t, s.UpdateNode(four))
	rec.await(t, "the nodes", func() bool { return len(rec.accNodes) == 4 })
	for _, id := range []string{"a", "b"} {
		must(t, s.UpdateApplication(app(id, "root."+id)))
	}
	rec.await(t, "both applications", func() bool { return rec.accApps["a"] && rec.accApps["b"] })
	ask := func(appID string, n int) *si.AllocationRequest {
		req := &si.AllocationRequest{RmID: "rm1"}
		for i := range n {
			req.Allocations = append(req.Allocations, &si.Allocation{AllocationKey: fmt.Sprint(appID, i), ApplicationID: appID,
				ResourcePerAlloc: res(1000, 1<<30), PreemptionPolicy: &si.PreemptionPolicy{AllowPreemptSelf: true, AllowPreemptOther: true}})
		}
		return req
	}
	must(t, s.UpdateAllocation(ask("b", 4)))
	rec.await(t, "b's 4 allocations", func() bool { return len(rec.allocs) == 4 })
	must(t, s.UpdateAllocation(ask("a", 4)))
	// the RM confirms each release as it comes, as a shim does
	confirmed := map[string]bool{}
	placed := func() int {
		n := 0
		for k := range rec.allocs {
			if strings.HasPrefix(k, "a") {
				n++
			}
		}
		return n
	}
	for {
		rec.await(t, "a victim or a's 3 allocations", func() bool { return len(rec.released) > len(confirmed) || placed() == 3 })
		rec.mu.Lock()
		rel := &si.AllocationRequest{RmID: "rm1", Releases: &si.AllocationReleasesRequest{}}
		for key, msg := range rec.released {
			if confirmed[key] {
				continue
			}
			confirmed[key] = true
			if !strings.HasPrefix(key, "b") || !strings.Contains(msg, "fair share rule") || !strings.Contains(msg, "fair share 0.2500") {
				t.Errorf("release of %s: %q", key, msg)
			}
			rel.Releases.AllocationsToRelease = append(rel.Releases.AllocationsToRelease, &si.AllocationRelease{
				PartitionName: "default", ApplicationID: "b", AllocationKey: key, TerminationType: si.TerminationType_PREEMPTED_BY_SCHEDULER})
		}
		done := placed() == 3
		rec.mu.Unlock()
		if len(rel.Releases.AllocationsToRelease) > 0 {
			must(t, s.UpdateAllocation(rel))
		}
		if done {
			break
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.released) != 3 {
		t.Errorf("%d victims, want 3", len(rec.released))
	}
}

// TestFairSharePreemptionBothWays runs fairScenario in process and over
// gRPC.
func TestFairSharePreemptionBothWays(t *testing.T) {
	t.Run("in-process", func(t *testing.T) {
		svc := rmproxy.New(clock.Real{})
		t.Cleanup(svc.Stop)
		rec := newRecorder()
		var cb api.ResourceManagerCallback = rec
		if _, err := svc.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Version: "test", Config: fairCfg}, cb); err != nil {
			t.Fatal(err)
		}
		fairScenario(t, svc, rec)
	})
	t.Run("grpc", func(t *testing.T) {
		_, _, addr := stack(t, grpcserver.Options{})
		c := dial(t, addr, client.Options{})
		rec := newRecorder()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "rm1", Version: "test", Config: fairCfg}, rec); err != nil {
			t.Fatal(err)
		}
		fairScenario(t, c, rec)
	})
}
