package queue

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
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

// TestAppOrderDefinition checks the application ordering's comparison,
// which reads the integer keys rekey recorded, against its definition
// (reference §2.4) on the live values: priority first when the leaf sorts
// by it, then the policy's key (share, or for fifo the submission time),
// priority as tie-breaker, submission time, ID. The cases draw ties on
// every key, submission times in other locations and with monotonic
// readings, times before 1970, and IDs that share 16-byte prefixes, are
// prefixes of each other or hold bytes past ASCII.
func TestAppOrderDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	base := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	zone := time.FixedZone("x", 3600)
	ids := []string{"a", "app-0000000000001", "app-0000000000001-x", "app-0000000000001-y", "app-00000000000010",
		"app-0000000000002", "app", "app\x00", "zé", "z\xff", "app-0000000000001\x00",
		"app-00001", "app-00002", "app-0001", "app-00010", "app-00001\x00"}
	times := []time.Time{base, base.In(zone), base.Add(time.Nanosecond), base.Add(-time.Nanosecond), base.Add(time.Second),
		time.Now(), time.Now().Add(time.Hour), time.Unix(-1, 5), time.Unix(-1, 0), time.Unix(-2, 999999999), {}}
	definition := func(h *appHeap, a, b *app.App) bool {
		pa, pb := a.Priority(), b.Priority()
		if h.byPriority && pa != pb {
			return pa > pb
		}
		if h.fair && a.SortShare != b.SortShare {
			return a.SortShare < b.SortShare
		}
		if !h.fair && !h.byPriority && !a.SubmitTime.Equal(b.SubmitTime) {
			return a.SubmitTime.Before(b.SubmitTime)
		}
		if !h.byPriority && pa != pb {
			return pa > pb
		}
		if !a.SubmitTime.Equal(b.SubmitTime) {
			return a.SubmitTime.Before(b.SubmitTime)
		}
		return a.ID < b.ID
	}
	mk := func() *app.App {
		a := app.Create(ids[r.IntN(len(ids))], "u", nil, nil, times[r.IntN(len(times))])
		if r.IntN(3) > 0 {
			x := &app.Allocation{Key: "k", Priority: int32(r.IntN(3)), Res: resource.Vector{1}}
			if err := a.AddAsk(x); err != nil {
				t.Fatal(err)
			}
		}
		rekey(a, float64(r.IntN(3)))
		return a
	}
	for _, h := range []*appHeap{{}, {fair: true}, {byPriority: true}, {fair: true, byPriority: true}} {
		for range 20000 {
			a, b := mk(), mk()
			if got, want := h.less(a, b), definition(h, a, b); got != want {
				t.Fatalf("fair=%v priority=%v: less(%q %v p%d s%v, %q %v p%d s%v) = %v, want %v", h.fair, h.byPriority,
					a.ID, a.SubmitTime, a.Priority(), a.SortShare, b.ID, b.SubmitTime, b.Priority(), b.SortShare, got, want)
			}
		}
	}
}
