package queue

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomPriorityTree is a tree three levels deep whose queues have random
// priority offsets (some near the int32 limits) and priority fences.
func randomPriorityTree(t *testing.T, r *rand.Rand) *Tree {
	var b strings.Builder
	b.WriteString("partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n")
	props := func(indent string) {
		switch r.IntN(5) {
		case 0:
			fmt.Fprintf(&b, "%sproperties: {priority.offset: \"%d\"}\n", indent, r.IntN(21)-10)
		case 1:
			fmt.Fprintf(&b, "%sproperties: {priority.policy: fence, priority.offset: \"%d\"}\n", indent, r.IntN(21)-10)
		case 2:
			fmt.Fprintf(&b, "%sproperties: {priority.offset: \"%d\"}\n", indent, math.MaxInt32-r.IntN(3))
		}
	}
	for c := range 1 + r.IntN(3) {
		fmt.Fprintf(&b, "          - name: c%d\n", c)
		props("            ")
		if r.IntN(3) == 0 {
			continue
		}
		b.WriteString("            queues:\n")
		for l := range 1 + r.IntN(3) {
			fmt.Fprintf(&b, "              - name: l%d\n", l)
			props("                ")
		}
	}
	return build(t, b.String())
}

// TestPriorityFloorBoundsEveryPath: over random trees with offsets and
// fences, the priority an allocation of any priority at least p has seen
// from any ancestor of its leaf (AdjustPriority up the path) is never
// below PriorityFloor(p), and the floor is reached by some path when no
// offset is positive; without offsets and fences the floor is p.
func TestPriorityFloorBoundsEveryPath(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 7))
	for range 2000 {
		tr := randomPriorityTree(t, r)
		p := int32(r.IntN(41) - 20)
		if r.IntN(10) == 0 {
			p = math.MaxInt32 - int32(r.IntN(3))
		}
		floor := tr.PriorityFloor(p)
		lowest, positive := int32(math.MaxInt32), false
		tr.Each(func(q *Queue) {
			positive = positive || q.Props.PriorityOffset > 0
			if !q.Leaf {
				return
			}
			for _, start := range []int32{p, p + min(5, math.MaxInt32-p)} {
				v := start
				for c := q; c.Parent != nil; c = c.Parent {
					v = c.AdjustPriority(v)
					if v < floor {
						t.Fatalf("leaf %s: priority %d is %d at %s, below the floor %d", q.Path, start, v, c.Path, floor)
					}
					if start == p {
						lowest = min(lowest, v)
					}
				}
			}
		})
		if !positive && lowest != math.MaxInt32 && lowest != floor {
			var tree []string
			tr.Each(func(q *Queue) {
				tree = append(tree, fmt.Sprint(q.Path, " ", q.Props.PriorityOffset, " ", q.Props.PriorityPolicy))
			})
			t.Fatalf("no positive offset: floor %d of priority %d, lowest path %d; %v", floor, p, lowest, tree)
		}
	}
	plain := build(t, treeYAML)
	if f := plain.PriorityFloor(7); f != 7 {
		t.Fatalf("floor of a tree without offsets %d, want 7", f)
	}
}
