package prio

import (
	"math/rand/v2"
	"testing"
)

// TestCounts compares Counts with a map over random additions and
// removals: same counts, same maximum, sorted without zero entries.
func TestCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var c Counts
	model := map[int32]int{}
	for step := range 20000 {
		p := int32(r.IntN(9) - 4)
		if r.IntN(50) == 0 {
			p = int32(r.Int32()) - 1<<30
		}
		n := r.IntN(3) + 1
		if r.IntN(2) == 0 {
			n = -n
		}
		c.Add(p, n)
		if v := model[p] + n; v > 0 {
			model[p] = v
		} else {
			delete(model, p)
		}
		want := int32(None)
		for k := range model {
			want = max(want, k)
		}
		if got := c.Max(); got != want {
			t.Fatalf("step %d: max %d, want %d", step, got, want)
		}
		if c.Len() != len(model) {
			t.Fatalf("step %d: %d priorities, want %d", step, len(c), len(model))
		}
		for i, e := range c {
			if e.n <= 0 || model[e.p] != e.n || (i > 0 && c[i-1].p >= e.p) {
				t.Fatalf("step %d: entry %d is %+v (model %d)", step, i, e, model[e.p])
			}
		}
	}
}
