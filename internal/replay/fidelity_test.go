package replay

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func secs(vs ...float64) []time.Duration {
	out := make([]time.Duration, len(vs))
	for i, v := range vs {
		out[i] = time.Duration(v * float64(time.Second))
	}
	return out
}

// span returns the delays lo, lo+1 s, ..., hi-1 s.
func span(lo, hi int) []time.Duration {
	var out []time.Duration
	for v := lo; v < hi; v++ {
		out = append(out, time.Duration(v)*time.Second)
	}
	return out
}

func TestKolmogorovSmirnovKnown(t *testing.T) {
	cases := []struct {
		name string
		a, b []time.Duration
		want float64
	}{
		{"identical", span(0, 100), span(0, 100), 0},
		{"disjoint", secs(1, 2, 3), secs(10, 20), 1},
		{"half shifted", span(0, 100), span(50, 150), 0.5},
		{"quarter shifted", span(0, 100), span(25, 125), 0.25},
		{"ties step together", secs(1, 1, 1, 1), secs(1, 1, 2, 2), 0.5},
		{"same values, other weights", secs(1, 2, 2, 2), secs(1, 1, 1, 2), 0.5},
		{"one point inside", secs(5), span(0, 10), 0.5},
	}
	for _, c := range cases {
		for _, swap := range []bool{false, true} {
			a, b := c.a, c.b
			if swap {
				a, b = b, a
			}
			if got := KolmogorovSmirnov(a, b); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("%s (swapped %v): KS %v, want %v", c.name, swap, got, c.want)
			}
		}
	}
}

// bruteKS evaluates both empirical CDFs at every sample point.
func bruteKS(a, b []time.Duration) float64 {
	cdf := func(s []time.Duration, x time.Duration) float64 {
		n := 0
		for _, v := range s {
			if v <= x {
				n++
			}
		}
		return float64(n) / float64(len(s))
	}
	var d float64
	for _, x := range append(slices.Clone(a), b...) {
		d = max(d, math.Abs(cdf(a, x)-cdf(b, x)))
	}
	return d
}

func TestKolmogorovSmirnovMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		a := make([]time.Duration, 1+rng.IntN(40))
		b := make([]time.Duration, 1+rng.IntN(40))
		for i := range a {
			a[i] = time.Duration(rng.IntN(12)) * time.Second // many ties
		}
		for i := range b {
			b[i] = time.Duration(rng.IntN(15)) * time.Second
		}
		slices.Sort(a)
		slices.Sort(b)
		if got, want := KolmogorovSmirnov(a, b), bruteKS(a, b); math.Abs(got-want) > 1e-12 {
			t.Fatalf("KS(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
}

func TestCompareDelays(t *testing.T) {
	trace := span(1, 101) // 1 s .. 100 s
	same := compareDelays(trace, trace)
	if same.KS != 0 || same.LogRatio != 0 || !same.Within || !same.Compared {
		t.Errorf("identical: %+v", same)
	}
	// ten times longer at every quantile: log-ratio 1, not within 3x
	var tenX []time.Duration
	for _, d := range trace {
		tenX = append(tenX, 10*d)
	}
	f := compareDelays(tenX, trace)
	if math.Abs(f.LogRatio-1) > 1e-9 || f.Within || f.KS < 0.8 {
		t.Errorf("ten times longer: %+v", f)
	}
	// sub-second delays on both sides compare as equal (floor 1 s)
	f = compareDelays(secs(0, 0.2, 0.5), secs(0.1, 0.9))
	if f.LogRatio != 0 || !f.Within {
		t.Errorf("below the floor: %+v", f)
	}
	// a tier the trace has and the replay never placed is as far as can be
	f = compareDelays(nil, trace)
	if f.KS != 1 || !f.Compared || f.Within {
		t.Errorf("none placed: %+v", f)
	}
	// a tier only the replay has is shown, not compared
	if f = compareDelays(trace, nil); f.Compared {
		t.Errorf("no trace delays: %+v", f)
	}
}

func TestWithin(t *testing.T) {
	cases := []struct {
		ours, trace float64
		want        bool
	}{
		{2, 2, true},
		{12, 2, true},    // trace under 10 s: 10 s of slack
		{12.5, 2, false}, // more than 10 s off
		{0, 9, true},
		{60, 20, true}, // 3x
		{61, 20, false},
		{7, 20, true}, // 20/3 = 6.67
		{6, 20, false},
		{3600, 600, false},
	}
	for _, c := range cases {
		if got := Within(time.Duration(c.ours*float64(time.Second)), time.Duration(c.trace*float64(time.Second))); got != c.want {
			t.Errorf("Within(%vs, %vs) = %v, want %v", c.ours, c.trace, got, c.want)
		}
	}
}

func TestSummaryFidelityWeights(t *testing.T) {
	s := newSummary(Options{})
	free, batch, prod := 0, 1, 3
	// free: identical (KS 0) with 100 trace tasks; batch: half shifted
	// (KS 0.5) with 300; production: never placed (KS 1) with 100;
	// monitoring: only ours, not compared
	s.Delays[free], s.TraceDelays[free] = span(0, 100), span(0, 100)
	s.Delays[batch] = span(150, 450)
	s.TraceDelays[batch] = span(0, 300)
	s.TraceDelays[prod] = span(0, 100)
	s.Delays[4] = secs(1)
	f := s.Fidelity()
	if len(f.Tiers) != 4 || f.Tiers[0].Tier != "free" || f.Tiers[3].Tier != "monitoring" || f.Tiers[3].Compared {
		t.Fatalf("tiers: %+v", f.Tiers)
	}
	want := (100*1 + 300*0.5 + 100*0) / 500.0
	if math.Abs(f.Score-want) > 1e-9 {
		t.Errorf("score %v, want %v", f.Score, want)
	}
	if empty := newSummary(Options{}).Fidelity(); empty.Score != 0 || len(empty.Tiers) != 0 {
		t.Errorf("no delays: %+v", empty)
	}
}
