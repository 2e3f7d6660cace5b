package rmproxy

import (
	"fmt"
	"testing"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
)

// spreadRM is an RM whose Predicates keeps the asks of one application
// apart, as the Kubernetes shim does for pods with required anti-affinity:
// it refuses a node that holds an allocation it has heard of, and it
// knows of allocations only through UpdateAllocation (the shim assumes a
// pod on its node when it hears of the allocation).
type spreadRM struct {
	*recorder
	heard map[string]string // allocation key -> node
}

func (r *spreadRM) UpdateAllocation(resp *si.AllocationResponse) error {
	r.mu.Lock()
	for _, a := range resp.New {
		r.heard[a.AllocationKey] = a.NodeID
	}
	r.mu.Unlock()
	return r.recorder.UpdateAllocation(resp)
}

func (r *spreadRM) Predicates(a *si.PredicatesArgs) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for key, node := range r.heard {
		if node == a.NodeID {
			return fmt.Errorf("node %s holds %s", a.NodeID, key)
		}
	}
	return nil
}

// Before asking an RM's Predicates about a node, the service has told the
// RM of every allocation decided before, even in the middle of a pass and
// of a batch: under binpacking every ask of a burst would otherwise be
// checked against the same, fullest node before the RM heard of the ones
// placed there, and all of them would land on it.
func TestPredicatesFollowDeliveredAllocations(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	rm := &spreadRM{recorder: newRecorder(), heard: map[string]string{}}
	const conf = `
partitions:
  - name: default
    nodesortpolicy:
      type: binpacking
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
`
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: conf}, rm); err != nil {
		t.Fatal(err)
	}
	const nodes, asks = 8, 6
	var ns []*si.NodeInfo
	for i := range nodes {
		ns = append(ns, &si.NodeInfo{NodeID: fmt.Sprintf("n%d", i), Action: si.NodeInfo_CREATE, SchedulableResource: res(100, 1<<30)})
	}
	_ = s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: ns})
	rm.await(t, "nodes", func() bool { return len(rm.accNodes) == nodes })
	_ = s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
	}})
	var as []*si.Allocation
	for i := range asks {
		as = append(as, &si.Allocation{AllocationKey: fmt.Sprintf("k%d", i), ApplicationID: "app1", ResourcePerAlloc: res(1, 1)})
	}
	_ = s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: as})
	rm.await(t, "allocations", func() bool { return len(rm.allocs) == asks })
	rm.mu.Lock()
	defer rm.mu.Unlock()
	on := map[string]string{}
	for _, a := range rm.allocs {
		if other, taken := on[a.NodeID]; taken {
			t.Errorf("%s and %s both on %s: the RM's check ran before it heard of the first", other, a.AllocationKey, a.NodeID)
		}
		on[a.NodeID] = a.AllocationKey
	}
}

// An RM that says its Predicates answers do not depend on the allocations
// it heard of (paddock.predicates.seeAllocations false) keeps batched
// deliveries; by default a pass delivers before every question, so each
// callback carries the one allocation decided since the last. A bad value
// of another extra key does not undo the switch.
func TestPredicatesSeeAllocationsSwitch(t *testing.T) {
	for _, c := range []struct {
		see    bool
		typo   bool
		suffix string
	}{{true, false, ""}, {false, false, ""}, {false, true, "/bad-log-level"}} {
		see := c.see
		t.Run(fmt.Sprintf("see=%v%s", see, c.suffix), func(t *testing.T) {
			s := New(clock.Real{})
			defer s.Stop()
			rec := &batchRecorder{recorder: newRecorder(), s: s}
			extra := map[string]string{}
			if !see {
				extra["paddock.predicates.seeAllocations"] = "false"
			}
			if c.typo {
				extra["log.level"] = "verbose"
			}
			if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg, ExtraConfig: extra}, rec); err != nil {
				t.Fatal(err)
			}
			_ = s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{
				{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(1<<40, 1<<50)},
			}})
			rec.await(t, "node", func() bool { return len(rec.accNodes) == 1 })
			_ = s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
				{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
			}})
			const n = 3000
			var asks []*si.Allocation
			for i := range n {
				asks = append(asks, &si.Allocation{AllocationKey: fmt.Sprintf("k%05d", i), ApplicationID: "app1", ResourcePerAlloc: res(1, 1)})
			}
			_ = s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks})
			rec.await(t, "allocations", func() bool { return len(rec.allocs) == n })
			rec.mu.Lock()
			defer rec.mu.Unlock()
			largest := 0
			for _, size := range rec.sizes {
				largest = max(largest, size)
			}
			if see && largest != 1 {
				t.Errorf("a callback carried %d allocations: the RM was asked about a node before it heard of them", largest)
			}
			if !see && len(rec.sizes) > n/4 {
				t.Errorf("%d allocations in %d callbacks: not batched", n, len(rec.sizes))
			}
			for i, a := range rec.allocs {
				if want := fmt.Sprintf("k%05d", i); a.AllocationKey != want {
					t.Fatalf("allocation %d is %s, want %s (decision order)", i, a.AllocationKey, want)
				}
			}
		})
	}
}
