package queue

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
)

// TestAppHeapRemove removes applications from random positions of a fair
// ordering with many ties (the ID decides) and checks after each removal
// that the heap holds and indexes exactly the others; popping the top
// then yields them in the comparison's order.
func TestAppHeapRemove(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		h := appHeap{fair: true}
		var in []*app.App
		for i := range 1 + r.IntN(60) {
			a := app.Create(fmt.Sprintf("app-%03d", r.IntN(1000)*100+i), "u", nil, nil, time.Unix(0, 0))
			a.SortShare = float64(r.IntN(3))
			h.push(a)
			in = append(in, a)
		}
		check := func(step string) {
			if len(h.a) != len(in) {
				t.Fatalf("round %d %s: %d in the heap, want %d", round, step, len(h.a), len(in))
			}
			for i, a := range h.a {
				if a.QueueIndex != i {
					t.Fatalf("round %d %s: %s at %d indexed %d", round, step, a.ID, i, a.QueueIndex)
				}
				if i > 0 && h.less(a, h.a[(i-1)/2]) {
					t.Fatalf("round %d %s: heap violated at %d", round, step, i)
				}
			}
		}
		for keep := len(in) / 2; len(in) > keep; {
			k := r.IntN(len(in))
			h.remove(in[k])
			if in[k].QueueIndex != -1 {
				t.Fatalf("round %d: removed app still indexed %d", round, in[k].QueueIndex)
			}
			in = slices.Delete(in, k, k+1)
			check("remove")
		}
		slices.SortFunc(in, func(a, b *app.App) int {
			if h.less(a, b) {
				return -1
			}
			return 1
		})
		for i, want := range in {
			if got := h.a[0]; got != want {
				t.Fatalf("round %d: top %d is %s, want %s", round, i, got.ID, want.ID)
			}
			h.remove(want)
		}
	}
}
