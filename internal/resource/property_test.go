package resource

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randVector draws components from a mix of small values, zeros and
// extremes so that overflow paths are exercised as well as ordinary ones.
func randVector(rng *rand.Rand) Vector {
	var v Vector
	for i := range v {
		switch rng.IntN(8) {
		case 0:
			v[i] = 0
		case 1:
			v[i] = math.MaxInt64 - rng.Int64N(3)
		case 2:
			v[i] = math.MinInt64 + rng.Int64N(3)
		case 3:
			v[i] = rng.Int64()
		default:
			v[i] = rng.Int64N(2001) - 1000
		}
	}
	return v
}

func randQuota(rng *rand.Rand) Quota {
	v := randVector(rng)
	var q Quota
	for i := range MaxTypes {
		if rng.IntN(2) == 0 {
			q = q.With(Index(i), v[i])
		}
	}
	return q
}

func TestVectorLaws(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		a, b, c := randVector(rng), randVector(rng), randVector(rng)
		if s, ok := a.AddChecked(b); ok {
			if s != a.Add(b) {
				t.Fatalf("AddChecked and Add disagree for %v + %v", a, b)
			}
			if back, ok := s.SubChecked(b); !ok || back != a {
				t.Fatalf("(%v + %v) - %v = %v, %v; want %v", a, b, b, back, ok, a)
			}
		} else {
			// Some component's exact sum must be out of range.
			over := false
			for i := range a {
				if (b[i] > 0 && a[i] > math.MaxInt64-b[i]) || (b[i] < 0 && a[i] < math.MinInt64-b[i]) {
					over = true
				}
			}
			if !over {
				t.Fatalf("AddChecked(%v, %v) reported overflow where there is none", a, b)
			}
		}
		if d, ok := a.SubChecked(b); ok && d.Add(b) != a {
			t.Fatalf("(%v - %v) + %v != %v", a, b, b, a)
		}
		lo, hi := a.Min(b), a.Max(b)
		for i := range a {
			if lo[i] > a[i] || lo[i] > b[i] || hi[i] < a[i] || hi[i] < b[i] || lo[i]+hi[i] != a[i]+b[i] {
				t.Fatalf("Min/Max bounds broken at %d for %v, %v", i, a, b)
			}
		}
		if !lo.Fits(hi) || !a.Fits(hi) {
			t.Fatalf("Min does not fit Max for %v, %v", a, b)
		}
		if !a.Fits(a) {
			t.Fatalf("%v does not fit itself", a)
		}
		if a.Fits(b) && b.Fits(c) && !a.Fits(c) {
			t.Fatalf("Fits is not transitive: %v, %v, %v", a, b, c)
		}
		// Make transitivity non-vacuous: b between a and c.
		if lo.Fits(hi) && hi.Fits(hi.Max(c)) && !lo.Fits(hi.Max(c)) {
			t.Fatalf("Fits is not transitive on a chain from %v", a)
		}
		if QuotaOf(b).Allows(a) != a.Fits(b) {
			t.Fatalf("QuotaOf(%v).Allows(%v) disagrees with Fits", b, a)
		}
	}
}

func TestQuotaLaws(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 20000; n++ {
		q, r := randQuota(rng), randQuota(rng)
		used, ask := randVector(rng), randVector(rng)
		if q.AllowsAdd(used, ask) != q.Headroom(used).Allows(ask) {
			t.Fatalf("AllowsAdd and Headroom disagree: q=%+v used=%v ask=%v", q, used, ask)
		}
		if q.Min(r).Allows(ask) != (q.Allows(ask) && r.Allows(ask)) {
			t.Fatalf("Min(q, r) allows %v differently from q and r together", ask)
		}
		if q.Min(r) != r.Min(q) {
			t.Fatalf("Quota.Min is not symmetric")
		}
		if (Quota{}).Allows(ask) != true {
			t.Fatal("unlimited quota refused something")
		}
		if s, ok := used.AddChecked(ask); ok && q.AllowsAdd(used, ask) {
			// Adding ask to used cannot break a limit that ask uses.
			for i := range ask {
				if l, set := q.Limit(Index(i)); set && ask[i] > 0 && s[i] > l {
					t.Fatalf("AllowsAdd allowed %v + %v over %+v", used, ask, q)
				}
			}
		}
	}
}
