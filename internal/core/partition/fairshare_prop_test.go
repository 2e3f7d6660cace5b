package partition

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/resource"
)

// randomFairState builds a random partition: root with fair-share
// preemption over two to four children, each a leaf or a parent (fair or
// not) of two or three leaves, random weights and some leaves'
// guarantees, one to
// four nodes filled at random by allocations of random size, priority and
// age; and a pending ask in a random leaf. It returns the partition, the
// ask and its leaf.
func randomFairState(t *testing.T, r *rand.Rand) (*Partition, *app.Allocation, *queue.Queue) {
	t.Helper()
	var b strings.Builder
	b.WriteString("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: \"*\"\n        properties: {paddock.fairshare.preemption: enabled}\n        queues:\n")
	var leaves []string
	props := func(indent string, fair, leaf bool) {
		fmt.Fprintf(&b, "%sproperties: {preemption.delay: 1s, paddock.fairshare.weight: \"%d\"", indent, 1+r.IntN(3))
		if fair {
			b.WriteString(", paddock.fairshare.preemption: enabled")
		}
		b.WriteString("}\n")
		if leaf && r.IntN(4) == 0 {
			fmt.Fprintf(&b, "%sresources: {guaranteed: {vcore: %d}}\n", indent, 1000*(1+r.IntN(4)))
		}
	}
	for c := range 2 + r.IntN(3) {
		fmt.Fprintf(&b, "          - name: c%d\n", c)
		if r.IntN(2) == 0 {
			props("            ", false, true)
			leaves = append(leaves, fmt.Sprintf("root.c%d", c))
			continue
		}
		props("            ", r.IntN(2) == 0, false)
		b.WriteString("            queues:\n")
		for l := range 2 + r.IntN(2) {
			fmt.Fprintf(&b, "              - name: l%d\n", l)
			props("                ", false, true)
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
	for n := range 1 + r.IntN(4) {
		id := fmt.Sprint("n", n)
		if err := p.AddNode(id, vec(8000, 8<<30), resource.Vector{}, nil, true); err != nil {
			t.Fatal(err)
		}
		for free := int64(8); free > 0; {
			size := min(free, int64(1+r.IntN(3)))
			if r.IntN(6) == 0 {
				break // some room left
			}
			k++
			x := &app.Allocation{Key: fmt.Sprint("k", k), AppID: leaves[r.IntN(len(leaves))], NodeID: id, Res: vec(size*1000, size<<30),
				Priority: int32(r.IntN(3)), Created: t0.Add(time.Duration(r.IntN(100)) * time.Second), PreemptSelf: r.IntN(5) != 0}
			if err := p.AddAllocation(x, t0); err != nil {
				t.Fatal(err)
			}
			free -= size
		}
	}
	p.Out.Take()
	size := int64(1 + r.IntN(3))
	x := &app.Allocation{Key: "ask", AppID: leaves[r.IntN(len(leaves))], Res: vec(size*1000, size<<30), Priority: int32(r.IntN(4)), PreemptOther: true}
	if err := p.AddAsk(x, t0); err != nil {
		t.Fatal(err)
	}
	return p, x, p.leafOf(p.apps[x.AppID])
}

// TestFairSharePropertyRandom: over 10,000 random states, a fair-share
// plan leaves no victim's queue below its fair share at the plan's level
// or below its guarantee anywhere, keeps the preemptor at or below its
// own, and once applied, the victims' queues cannot take anything back
// from the preemptor's at that level (no loops).
func TestFairSharePropertyRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 3841))
	now := t0.Add(time.Minute)
	fair, guaranteed := 0, 0
	for state := range 10000 {
		p, x, leaf := randomFairState(t, r)
		plan, ok := p.planPreemption(leaf, x, now)
		if !ok {
			continue
		}
		if plan.fair == nil {
			guaranteed++
			continue
		}
		fair++
		lvl := plan.fair
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("state %d (ask %s in %s, %d victims): %s", state, x.AppID, leaf.Path, len(plan.victims), fmt.Sprintf(format, args...))
		}
		removed := map[*queue.Queue]resource.Vector{}
		for _, v := range plan.victims {
			for q := p.leafOf(p.apps[v.AppID]); q != nil; q = q.Parent {
				if q == lvl.ask || q == leaf {
					fail("victim %s from the preemptor's own side", v.Key)
				}
				rv := removed[q]
				rv.Inc(v.Res)
				removed[q] = rv
			}
		}
		lvl.parent.EachChild(func(c *queue.Queue) {
			if rv, hit := removed[c]; hit {
				if got, want := lvl.used(c, rv), lvl.fraction(c); got < want {
					fail("victim queue %s left at share %.4f, below its fair share %.4f", c.Path, got, want)
				}
			}
		})
		for q, rv := range removed {
			for i, n := range rv {
				if g, set := q.Guaranteed.Limit(resource.Index(i)); set && n > 0 && q.Allocated[i]-n < g {
					fail("queue %s left below its guarantee in type %d", q.Path, i)
				}
			}
		}
		if lvl.askUsed > lvl.askFair {
			fail("preemptor at %.4f above its fair share %.4f", lvl.askUsed, lvl.askFair)
		}
		// apply, then let every victim queue at the level ask for the same
		p.applyPreemption(p.apps[x.AppID], x, plan, now)
		if err := p.Verify(); err != nil {
			fail("%v", err)
		}
		for c := range removed {
			if c.Parent != lvl.parent {
				continue
			}
			back := c
			for !back.Leaf {
				back = back.Children()[0]
			}
			id := "back-" + back.Path
			if _, has := p.apps[id]; !has {
				p.AddApp(AppRequest{ID: id, Queue: back.Path, User: "w"}, now)
			}
			y := &app.Allocation{Key: "back", AppID: id, Res: x.Res, Priority: 1 << 20, PreemptOther: true}
			if err := p.AddAsk(y, now); err != nil {
				fail("%v", err)
			}
			if bp, ok := p.planPreemption(back, y, now); ok && bp.fair != nil && bp.fair.parent == lvl.parent {
				for _, v := range bp.victims {
					if isAncestor(lvl.ask, p.leafOf(p.apps[v.AppID])) {
						fail("loop: %s would take %s back from %s", back.Path, v.Key, lvl.ask.Path)
					}
				}
			}
		}
	}
	t.Logf("10000 states: %d fair-share plans, %d guaranteed plans", fair, guaranteed)
	if fair < 500 {
		t.Fatalf("only %d fair-share plans: the generator does not exercise the rule", fair)
	}
}
