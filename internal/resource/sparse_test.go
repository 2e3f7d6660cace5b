package resource

import (
	"math/rand/v2"
	"testing"
)

// The *On methods must agree with their dense versions whenever the mask
// covers the support, and must leave types outside the mask alone.
func TestSparseMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 20000; n++ {
		q := randQuota(rng)
		used, ask := randVector(rng), randVector(rng)
		switch n % 3 {
		case 0: // vcore and memory only, the usual shape
			clear(ask[2:])
		case 1: // one further type
			clear(ask[2:])
			ask[2+rng.IntN(MaxTypes-2)] = rng.Int64N(5) - 2
		}
		m := ask.Support()
		for i, x := range ask {
			if (x != 0) != m.Has(Index(i)) {
				t.Fatalf("Support(%v) = %b", ask, m)
			}
		}
		if got, want := q.AllowsAddOn(&used, &ask, m), q.AllowsAdd(used, ask); got != want {
			t.Fatalf("AllowsAddOn = %v, AllowsAdd = %v: q=%+v used=%v ask=%v", got, want, q, used, ask)
		}
		if _, ok := used.AddChecked(ask); used.AddsOn(&ask, m) != ok {
			t.Fatalf("AddsOn = %v, AddChecked ok = %v: used=%v ask=%v", !ok, ok, used, ask)
		}
		if got, want := ask.NegativeOn(m), ask.HasNegative(); got != want {
			t.Fatalf("NegativeOn = %v, HasNegative = %v: %v", got, want, ask)
		}
		hi, hiOn := used, used
		hi = hi.Max(ask)
		hiOn.MaxOn(&ask, m|used.Support())
		if hi != hiOn {
			t.Fatalf("MaxOn = %v, Max = %v", hiOn, hi)
		}
		dense, sparse := used, used
		dense.Inc(ask)
		sparse.IncOn(&ask, m)
		if dense != sparse {
			t.Fatalf("IncOn = %v, Inc = %v", sparse, dense)
		}
		dense.Dec(ask)
		sparse.DecOn(&ask, m)
		if dense != sparse || dense != used {
			t.Fatalf("DecOn = %v, Dec = %v, want %v", sparse, dense, used)
		}
		// a narrower mask leaves the other types untouched
		part := used
		part.IncOn(&ask, m&0b1)
		for i := 1; i < MaxTypes; i++ {
			if part[i] != used[i] {
				t.Fatalf("IncOn with mask 1 changed type %d", i)
			}
		}
	}
}

func TestSparseDoesNotAllocate(t *testing.T) {
	a := Vector{1000, 1 << 30}
	b := Vector{5, 6}
	q := QuotaOf(Vector{1 << 40, 1 << 40})
	m := b.Support()
	for name, op := range map[string]func(){
		"Support":     func() { sinkBool = a.Support() == 0 },
		"IncOn":       func() { a.IncOn(&b, m) },
		"DecOn":       func() { a.DecOn(&b, m) },
		"AllowsAddOn": func() { sinkBool = q.AllowsAddOn(&a, &b, m) },
		"AddsOn":      func() { sinkBool = a.AddsOn(&b, m) },
		"NegativeOn":  func() { sinkBool = b.NegativeOn(m) },
		"MaxOn":       func() { a.MaxOn(&b, m) },
	} {
		if n := testing.AllocsPerRun(100, op); n != 0 {
			t.Errorf("%s allocates %v times per call, want 0", name, n)
		}
	}
}
