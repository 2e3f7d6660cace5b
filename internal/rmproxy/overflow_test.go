package rmproxy

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/health"
	"github.com/paddock-sched/paddock/internal/resource"
	"github.com/paddock-sched/paddock/internal/sigen"
)

// TestNoTotalWraps is a randomized property test of the SI boundary: no
// sequence of node, foreign allocation, ask, recovered allocation, resize,
// release and decommission messages with quantities at the int64 edges
// makes any total wrap. After every cycle no partition, node, queue or
// application total is negative or above MaxQuantity, node availability is
// exact, the consistency health check passes and Verify holds (except for
// nodes the RM itself overcommitted, by shrinking them or by foreign
// allocations beyond their capacity).
func TestNoTotalWraps(t *testing.T) {
	var highest int64
	for seed := range uint64(40) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { highest = max(highest, noTotalWraps(t, seed, 200)) })
	}
	// the inputs did reach the bound, so the property was tested there
	if highest < resource.MaxQuantity/2 {
		t.Errorf("the highest total seen is %d: the test never came near MaxQuantity", highest)
	}
}

// noTotalWraps runs one random sequence and returns the highest partition
// total it saw.
func noTotalWraps(t *testing.T, seed uint64, steps int) (highest int64) {
	return totalsHold(t, rand.New(rand.NewPCG(seed, 18)), steps)
}

// FuzzNoTotalWraps runs the property of TestNoTotalWraps on sequences the
// fuzzer chooses: go test ./internal/rmproxy -run '^$' -fuzz FuzzNoTotalWraps
func FuzzNoTotalWraps(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 11, 2, 11, 0, 0, 0, 1, 2, 11, 2, 11})
	f.Add([]byte{3, 1, 1, 1, 1, 6, 1, 8, 1, 7, 5, 0, 0, 1, 1, 1, 10, 1, 9})
	f.Fuzz(func(t *testing.T, b []byte) {
		totalsHold(t, &sigen.Bytes{B: b}, len(b)/3+1)
	})
}

// totalsHold sends steps random SI messages, each followed by a cycle,
// checking the totals after each; it returns the highest total seen.
func totalsHold(t *testing.T, rng sigen.Chooser, steps int) (highest int64) {
	v := clock.NewVirtual(time.Unix(1000, 0))
	hugeRes := (&sigen.Gen{C: rng}).HugeRes
	s := NewManual(v)
	defer s.Stop()
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
		{ApplicationID: "app2", QueueName: "root.b", Ugi: &si.UserGroupInformation{User: "bob"}},
	}})
	s.Cycle()
	node := func() string { return fmt.Sprint("n", rng.IntN(4)) }
	appID := func() string { return fmt.Sprint("app", 1+rng.IntN(2)) }
	key := func() string { return fmt.Sprint("k", rng.IntN(12)) }
	for step := range steps {
		switch rng.IntN(8) {
		case 0, 1:
			action := si.NodeInfo_CREATE
			if rng.IntN(2) == 0 {
				action = si.NodeInfo_UPDATE
			}
			s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: node(), Action: action, SchedulableResource: hugeRes()}}})
		case 2:
			s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{{
				AllocationKey: "f" + key(), NodeID: node(), ResourcePerAlloc: hugeRes(),
				AllocationTags: map[string]string{common.Foreign: common.AllocTypeDefault},
			}}})
		case 3, 4:
			// an ask, or the resize of a known key
			s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{{
				AllocationKey: key(), ApplicationID: appID(), ResourcePerAlloc: hugeRes(),
			}}})
		case 5:
			// a recovered allocation the RM placed
			s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{{
				AllocationKey: key(), ApplicationID: appID(), NodeID: node(), ResourcePerAlloc: hugeRes(),
			}}})
		case 6:
			rel := &si.AllocationRelease{ApplicationID: appID(), AllocationKey: key(), TerminationType: si.TerminationType_STOPPED_BY_RM}
			if rng.IntN(3) == 0 {
				rel = &si.AllocationRelease{AllocationKey: "f" + key()}
			}
			s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Releases: &si.AllocationReleasesRequest{AllocationsToRelease: []*si.AllocationRelease{rel}}})
		case 7:
			s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: node(), Action: si.NodeInfo_DECOMISSION}}})
		}
		v.Advance(time.Second)
		s.Cycle()
		highest = max(highest, checkTotals(t, s, step))
		if t.Failed() {
			return highest
		}
	}
	return highest
}

// checkTotals fails t if any total of the service's state is negative or
// above MaxQuantity, or its roll-ups do not match. It returns the highest
// partition capacity or root queue total.
func checkTotals(t *testing.T, s *Service, step int) (highest int64) {
	t.Helper()
	problems, highest, err := s.Audit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("step %d: %s", step, p)
	}
	snap, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range health.Evaluate(snap, snap.Counters).HealthChecks {
		if c.Name == "Consistency of data" && !c.Succeeded {
			t.Errorf("step %d: %s: %s", step, c.Name, c.DiagnosisMessage)
		}
	}
	return highest
}

// TestOverflowRejectedWithReason replays the probe: a second node
// whose gpu would take the partition's capacity past MaxQuantity, a
// quantity above it, and asks whose sum would, are rejected with a reason
// and change nothing.
func TestOverflowRejectedWithReason(t *testing.T) {
	s := NewManual(clock.NewVirtual(time.Unix(1000, 0)))
	defer s.Stop()
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	gpu := func(x int64) *si.Resource {
		return &si.Resource{Resources: map[string]*si.Quantity{"gpu": {Value: x}}}
	}
	s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{
		{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: gpu(resource.MaxQuantity - 1)},
		{NodeID: "n2", Action: si.NodeInfo_CREATE, SchedulableResource: gpu(2)},
		{NodeID: "n3", Action: si.NodeInfo_CREATE, SchedulableResource: gpu(math.MaxInt64)},
	}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
	}})
	s.Cycle()
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "k1", ApplicationID: "app1", ResourcePerAlloc: gpu(resource.MaxQuantity)},
		{AllocationKey: "k2", ApplicationID: "app1", ResourcePerAlloc: gpu(1)},
	}})
	s.Cycle()

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.accNodes) != 1 || rec.accNodes[0] != "n1" {
		t.Errorf("accepted nodes %v, want [n1]", rec.accNodes)
	}
	want := map[string]string{
		"n2": `node n2: the total capacity of resource "gpu" in partition default would exceed the maximum 2305843009213693952`,
		"n3": `node n3: schedulable resource: resource "gpu": quantity 9223372036854775807 is above the maximum 2305843009213693952`,
	}
	for _, r := range rec.rejNodes {
		if want[r.NodeID] != r.Reason {
			t.Errorf("node %s rejected with %q, want %q", r.NodeID, r.Reason, want[r.NodeID])
		}
		delete(want, r.NodeID)
	}
	if len(want) > 0 {
		t.Errorf("nodes not rejected: %v", want)
	}
	if len(rec.rejAlloc) != 1 || rec.rejAlloc[0].AllocationKey != "k2" ||
		rec.rejAlloc[0].Reason != `allocation k2: the total of asks and allocations of resource "gpu" in partition default would exceed the maximum 2305843009213693952` {
		t.Errorf("rejected allocations %v, want k2 for the asks' total", rec.rejAlloc)
	}
	s.Inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		gi, _ := e.Registry("rm1").Index("gpu")
		if c := p.Tree().Cluster()[gi]; c != resource.MaxQuantity-1 {
			t.Errorf("cluster gpu %d, want %d", c, resource.MaxQuantity-1)
		}
		if err := e.Verify(); err != nil {
			t.Error(err)
		}
	})
}
