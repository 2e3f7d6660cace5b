package partition

import (
	"fmt"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/node"
)

const breadthConfig = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources: {guaranteed: {vcore: 100000}}
          - name: b
`

// breadthCluster builds nodes full of queue b's allocations: every node
// holds four 1,000-vcore allocations except the last, which holds two of
// 2,000, so a 2,000-vcore ask needs two victims anywhere but there.
func breadthCluster(t *testing.T, nodes int) (*Partition, *app.Allocation) {
	t.Helper()
	p := mustPartition(t, breadthConfig)
	if err := p.AddApp(AppRequest{ID: "victims", Queue: "root.b", User: "u"}, t0); err != nil {
		t.Fatal(err)
	}
	for i := range nodes {
		id := fmt.Sprintf("n%04d", i)
		if err := p.AddNode(id, vec(4000, 4096), vec(0, 0), nil, true); err != nil {
			t.Fatal(err)
		}
		sizes := []int64{1000, 1000, 1000, 1000}
		if i == nodes-1 {
			sizes = []int64{2000, 2000}
		}
		for j, s := range sizes {
			// memory in proportion, so every node is equally full and the
			// index orders them by ID
			x := &app.Allocation{Key: fmt.Sprintf("%s-%d", id, j), AppID: "victims", NodeID: id, Res: vec(s, s*4096/4000), PreemptSelf: true}
			if err := p.AddAllocation(x, t0); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := p.AddApp(AppRequest{ID: "preemptor", Queue: "root.a", User: "v"}, t0); err != nil {
		t.Fatal(err)
	}
	x := &app.Allocation{Key: "big", AppID: "preemptor", Res: vec(2000, 1024), PreemptOther: true}
	if err := p.AddAsk(x, t0); err != nil {
		t.Fatal(err)
	}
	return p, x
}

// TestVictimSearchBreadth: below the candidate bound the search finds the
// node that needs the fewest victims wherever it is; above it, the search
// stops after the bound's worth of workable nodes and takes the best of
// those, so a decision does not touch every allocation of a large cluster.
func TestVictimSearchBreadth(t *testing.T) {
	now := t0.Add(time.Minute)
	small, x := breadthCluster(t, minCandidateNodes)
	plan, ok := small.planPreemption(small.leafOf(small.apps["preemptor"]), x, now)
	if !ok || plan.node.ID != fmt.Sprintf("n%04d", minCandidateNodes-1) || len(plan.victims) != 1 {
		t.Fatalf("%d nodes: plan %v on %v, want 1 victim on the last node", minCandidateNodes, plan.victims, plan.node)
	}

	nodes := 3 * minCandidateNodes
	large, x := breadthCluster(t, nodes)
	if got := large.candidateNodes(); got != minCandidateNodes {
		t.Fatalf("candidate nodes at %d nodes = %d, want %d", nodes, got, minCandidateNodes)
	}
	plan, ok = large.planPreemption(large.leafOf(large.apps["preemptor"]), x, now)
	if !ok || len(plan.victims) != 2 {
		t.Fatalf("%d nodes: plan %v, %v; want 2 victims", nodes, plan.victims, ok)
	}
	var pos int
	large.EachNode(func(n *node.Node) bool {
		if n == plan.node {
			return false
		}
		pos++
		return true
	})
	if pos >= minCandidateNodes {
		t.Fatalf("plan on node %s at position %d, beyond the first %d workable nodes", plan.node.ID, pos, minCandidateNodes)
	}
	for _, v := range plan.victims {
		if v.NodeID != plan.node.ID {
			t.Fatalf("victim %s on %s, plan node %s", v.Key, v.NodeID, plan.node.ID)
		}
	}
	if err := large.Verify(); err != nil {
		t.Fatal(err)
	}
}
