package partition

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/resource"
)

// randomSearchState builds a random partition for the victim search: a
// tree of two to four children of root, leaves or parents of two or three
// leaves, with random guarantees, priority offsets (negative ones too),
// priority and preemption fences, disabled leaves and fair-share parents;
// 1 to 160 nodes, some draining, filled at random with allocations of
// random vcore and memory, priority, age and preemption policy; and a
// pending ask in a random leaf.
func randomSearchState(t *testing.T, r *rand.Rand) (*Partition, *app.Allocation, *queue.Queue) {
	t.Helper()
	var b strings.Builder
	b.WriteString("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: \"*\"\n")
	if r.IntN(3) == 0 {
		b.WriteString("        properties: {paddock.fairshare.preemption: enabled}\n")
	}
	b.WriteString("        queues:\n")
	var leaves []string
	props := func(indent string, leaf bool) {
		fmt.Fprintf(&b, "%sproperties: {preemption.delay: 1s, paddock.fairshare.weight: \"%d\"", indent, 1+r.IntN(3))
		switch r.IntN(6) {
		case 0:
			fmt.Fprintf(&b, ", priority.offset: \"%d\"", r.IntN(11)-5)
		case 1:
			fmt.Fprintf(&b, ", priority.policy: fence, priority.offset: \"%d\"", r.IntN(7)-3)
		}
		switch r.IntN(10) {
		case 0:
			b.WriteString(", preemption.policy: fence")
		case 1:
			b.WriteString(", preemption.policy: disabled")
		}
		if !leaf && r.IntN(2) == 0 {
			b.WriteString(", paddock.fairshare.preemption: enabled")
		}
		b.WriteString("}\n")
		if leaf && r.IntN(2) == 0 {
			fmt.Fprintf(&b, "%sresources: {guaranteed: {vcore: %d}}\n", indent, 1000*(1+r.IntN(40)))
		}
	}
	for c := range 2 + r.IntN(3) {
		fmt.Fprintf(&b, "          - name: c%d\n", c)
		if r.IntN(2) == 0 {
			props("            ", true)
			leaves = append(leaves, fmt.Sprintf("root.c%d", c))
			continue
		}
		props("            ", false)
		b.WriteString("            queues:\n")
		for l := range 2 + r.IntN(2) {
			fmt.Fprintf(&b, "              - name: l%d\n", l)
			props("                ", true)
			leaves = append(leaves, fmt.Sprintf("root.c%d.l%d", c, l))
		}
	}
	p := mustPartition(t, b.String())
	for _, l := range leaves {
		if err := p.AddApp(AppRequest{ID: l, Queue: l, User: "u"}, t0); err != nil {
			t.Fatal(err)
		}
	}
	k := 0
	for n := range 1 + r.IntN(160) {
		id := fmt.Sprintf("n%03d", n)
		capacity := int64(4 + r.IntN(5))
		if err := p.AddNode(id, vec(capacity*1000, capacity<<30), resource.Vector{}, nil, r.IntN(12) != 0); err != nil {
			t.Fatal(err)
		}
		for free := capacity; free > 0; {
			size := min(free, int64(1+r.IntN(3)))
			if r.IntN(12) == 0 {
				break // some room left
			}
			k++
			x := &app.Allocation{Key: fmt.Sprint("k", k), AppID: leaves[r.IntN(len(leaves))], NodeID: id,
				Res: vec(size*1000, int64(1+r.IntN(int(size)*2))<<29), Priority: int32(r.IntN(5) - 1),
				Created: t0.Add(time.Duration(r.IntN(100)) * time.Second), PreemptSelf: r.IntN(6) != 0, Originator: r.IntN(8) == 0}
			if err := p.AddAllocation(x, t0); err != nil {
				t.Fatal(err)
			}
			free -= size
		}
	}
	p.Out.Take()
	size := int64(1 + r.IntN(4))
	x := &app.Allocation{Key: "ask", AppID: leaves[r.IntN(len(leaves))], Res: vec(size*1000, size<<30), Priority: int32(r.IntN(5)), PreemptOther: true}
	if err := p.AddAsk(x, t0); err != nil {
		t.Fatal(err)
	}
	return p, x, p.leafOf(p.apps[x.AppID])
}

// planText describes a plan for comparison.
func planText(plan preemptPlan, ok bool) string {
	if !ok {
		return "none"
	}
	var b strings.Builder
	b.WriteString(plan.node.ID)
	if plan.fair != nil {
		b.WriteString(" fair " + plan.fair.parent.Path)
	}
	for _, v := range plan.victims {
		b.WriteString(" " + v.AppID + "/" + v.Key)
	}
	return b.String()
}

// TestSearchStopsAtFloorSameDecision: over 1,000 random states, the victim
// search that ends at a plan no node can beat (planFloor) decides exactly
// as the search over every candidate node: the same node, victims and
// rule, and with the RM's PreemptionPredicates (refusing some nodes) the
// same questions in the same order. It looks at no more nodes, and at
// fewer in some states.
func TestSearchStopsAtFloorSameDecision(t *testing.T) {
	defer func(s bool) { stopAtFloor = s }(stopAtFloor)
	r := rand.New(rand.NewPCG(39, 1))
	now := t0.Add(time.Minute)
	plans, fewer := 0, 0
	for state := range 1000 {
		seed := r.Uint64()
		run := func(stop, rm bool) (string, []string, int) {
			stopAtFloor = stop
			p, x, leaf := randomSearchState(t, rand.New(rand.NewPCG(seed, 2)))
			var asked []string
			if rm {
				p.SetPreemptCheck(func(_ *app.Allocation, nodeID string, keys []string, start int) (bool, int) {
					asked = append(asked, fmt.Sprint(nodeID, keys, start))
					h := fnv.New32a()
					h.Write([]byte(fmt.Sprint(seed, nodeID)))
					v := h.Sum32()
					return v%3 != 0, start + int(v/3%2)
				})
			}
			plan, ok := p.planPreemption(leaf, x, now)
			return planText(plan, ok), asked, p.victimNodes
		}
		for _, rm := range []bool{false, true} {
			want, wantAsked, all := run(false, rm)
			got, gotAsked, visited := run(true, rm)
			if got != want || !slices.Equal(gotAsked, wantAsked) {
				t.Fatalf("state %d (rm %v): stopping at the floor plans %q, asking %v; the whole search %q, asking %v", state, rm, got, gotAsked, want, wantAsked)
			}
			if visited > all {
				t.Fatalf("state %d (rm %v): %d nodes looked at, %d without stopping", state, rm, visited, all)
			}
			if want != "none" {
				plans++
				if visited < all {
					fewer++
				}
			}
		}
	}
	t.Logf("%d plans, %d of them found looking at fewer nodes", plans, fewer)
	if plans < 300 || fewer < plans/10 {
		t.Fatalf("%d plans, %d found with fewer nodes: the states do not exercise the search", plans, fewer)
	}
}

// TestSearchStopsAtFloorFullCluster: in a full cluster of like
// allocations (the at-scale benchmark's set-up) the first workable node's
// plan cannot be beaten, and the search looks at that node alone rather
// than minCandidateNodes of them; a lower-priority allocation on a later
// node moves the floor and the search goes on to find it.
func TestSearchStopsAtFloorFullCluster(t *testing.T) {
	p := mustPartition(t, `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: urgent
            resources: {guaranteed: {vcore: 100000}}
          - name: batch
`)
	for _, id := range []string{"urgent", "batch"} {
		if err := p.AddApp(AppRequest{ID: id, Queue: "root." + id, User: "u"}, t0); err != nil {
			t.Fatal(err)
		}
	}
	for n := range 300 {
		id := fmt.Sprintf("n%03d", n)
		if err := p.AddNode(id, vec(4000, 4<<30), resource.Vector{}, nil, true); err != nil {
			t.Fatal(err)
		}
		for i := range 4 {
			x := &app.Allocation{Key: fmt.Sprintf("b%03d-%d", n, i), AppID: "batch", NodeID: id, Res: vec(1000, 1<<30),
				Created: t0.Add(time.Duration(i) * time.Second), PreemptSelf: true}
			if err := p.AddAllocation(x, t0); err != nil {
				t.Fatal(err)
			}
		}
	}
	p.Out.Take()
	x := &app.Allocation{Key: "ask", AppID: "urgent", Res: vec(2000, 2<<30), Priority: 10, PreemptOther: true}
	if err := p.AddAsk(x, t0); err != nil {
		t.Fatal(err)
	}
	leaf := p.leafOf(p.apps["urgent"])
	now := t0.Add(time.Minute)
	plan, ok := p.planPreemption(leaf, x, now)
	if got := planText(plan, ok); got != "n000 batch/b000-3 batch/b000-2" {
		t.Fatalf("plan %q, want the first node's two youngest", got)
	}
	if p.victimNodes != 1 {
		t.Fatalf("the search looked at %d nodes, want 1", p.victimNodes)
	}

	// one allocation of priority -1 on node 50: the floor is lower
	// than the first node's plan, which another node may beat
	low := &app.Allocation{Key: "low", AppID: "batch", NodeID: "n050", Res: vec(1000, 1<<30), Priority: -1, Created: t0, PreemptSelf: true}
	if !p.Release("batch", "b050-0", now) {
		t.Fatal("b050-0 not released")
	}
	if err := p.AddAllocation(low, now); err != nil {
		t.Fatal(err)
	}
	p.Out.Take()
	p.victimNodes = 0
	plan, ok = p.planPreemption(leaf, x, now)
	if got := planText(plan, ok); got != "n050 batch/low batch/b050-3" {
		t.Fatalf("plan %q, want node n050's lower priority first", got)
	}
	if p.victimNodes != minCandidateNodes {
		t.Fatalf("the search looked at %d nodes, want the breadth %d", p.victimNodes, minCandidateNodes)
	}
}
