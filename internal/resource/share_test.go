package resource

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestDominantShare(t *testing.T) {
	tests := []struct {
		name        string
		used, total Vector
		want        float64
	}{
		{"nothing used", vec(), vec(1000, 1000), 0},
		{"memory dominates", vec(100, 500), vec(1000, 1000), 0.5},
		{"vcore dominates", vec(900, 500), vec(1000, 1000), 0.9},
		{"type without total ignored", vec(1, 0, 50), vec(1000, 0, 0), 0.001},
		{"no totals", vec(5, 5), vec(), 0},
		{"over capacity", vec(3000), vec(1000), 3},
		{"negative usage does not count", vec(-100), vec(1000), 0},
	}
	for _, tc := range tests {
		if got := DominantShare(tc.used, tc.total); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: DominantShare(%v, %v) = %v, want %v", tc.name, tc.used, tc.total, got, tc.want)
		}
	}
}

func TestFairShare(t *testing.T) {
	g := Quota{}.With(VCoreIndex, 2000)
	tests := []struct {
		name       string
		used       Vector
		guaranteed Quota
		fairMax    Vector
		want       float64
	}{
		{"nothing used", vec(), g, vec(10000, 1000), 0},
		{"guaranteed type", vec(1000), g, vec(10000, 1000), 0.5},
		{"falls back to fair max", vec(1000, 800), g, vec(10000, 1000), 0.8},
		{"no guaranteed at all", vec(1000, 100), Quota{}, vec(10000, 1000), 0.1},
		{"zero guaranteed with usage", vec(1), Quota{}.With(VCoreIndex, 0), vec(10000), 1},
		{"zero fair max with usage", vec(0, 0, 3), Quota{}, vec(10000, 1000), 1},
		{"above guaranteed", vec(5000), g, vec(10000), 2.5},
		{"guaranteed wins over fair max", vec(1000), g, vec(1000), 0.5},
		{"negative usage does not count", vec(-5000, 100), g, vec(10000, 1000), 0.1},
		{"the last type counts", func() Vector { v := vec(10); v[MaxTypes-1] = 30; return v }(), g,
			func() Vector { v := vec(10000); v[MaxTypes-1] = 40; return v }(), 0.75},
	}
	for _, tc := range tests {
		if got := FairShare(tc.used, tc.guaranteed, tc.fairMax); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: FairShare = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestFairShareOfAnyTypes checks FairShareOf, which visits only the types
// in use, against the definition over every type, for usage on random
// types (negative and zero ones included) and denominators of every sign.
func TestFairShareOfAnyTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() int64 { return []int64{-7, 0, 0, 1, 3, 1000, math.MaxInt64}[r.IntN(7)] }
	for range 10000 {
		var used, fairMax Vector
		var g Quota
		for i := range MaxTypes {
			used[i], fairMax[i] = pick(), pick()
			if r.IntN(3) == 0 {
				g = g.With(Index(i), pick())
			}
		}
		var want float64
		for i, u := range used {
			if u <= 0 {
				continue
			}
			d := fairMax[i]
			if l, ok := g.Limit(Index(i)); ok {
				d = l
			}
			if d <= 0 {
				want = max(want, 1)
				continue
			}
			want = max(want, float64(u)/float64(d))
		}
		if got := FairShareOf(&used, &g, &fairMax); got != want {
			t.Fatalf("FairShareOf(%v, %v, %v) = %v, want %v", used, g, fairMax, got, want)
		}
	}
}

func TestWeightedShare(t *testing.T) {
	def := DefaultWeights()
	gpuHeavy := Weights{}
	gpuHeavy[VCoreIndex], gpuHeavy[2] = 1, 3
	tests := []struct {
		name           string
		used, capacity Vector
		w              *Weights
		want           float64
	}{
		{"empty node", vec(), vec(4000, 1000), &def, 0},
		{"average of vcore and memory", vec(1000, 500), vec(4000, 1000), &def, 0.375},
		{"full node", vec(4000, 1000), vec(4000, 1000), &def, 1},
		{"unweighted types ignored", vec(0, 0, 8), vec(4000, 1000, 8), &def, 0},
		{"weights", vec(2000, 0, 1), vec(4000, 0, 4), &gpuHeavy, (1*0.5 + 3*0.25) / 4},
		{"type without capacity skipped", vec(2000, 10), vec(4000, 0), &def, 0.5},
		{"no counted types", vec(5), vec(), &def, 0},
	}
	for _, tc := range tests {
		if got := WeightedShare(tc.used, tc.capacity, tc.w); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: WeightedShare = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestWeightsFromMap(t *testing.T) {
	r := NewRegistry()
	if w, err := r.WeightsFromMap(nil); err != nil || w != DefaultWeights() {
		t.Errorf("WeightsFromMap(nil) = %v, %v; want defaults", w, err)
	}
	w, err := r.WeightsFromMap(map[string]float64{"memory": 2, "nvidia.com/gpu": 4})
	if err != nil {
		t.Fatal(err)
	}
	gpu, ok := r.Index("nvidia.com/gpu")
	if !ok {
		t.Fatal("gpu not interned")
	}
	var want Weights
	want[MemoryIndex], want[gpu] = 2, 4
	if w != want {
		t.Errorf("weights = %v, want %v", w, want)
	}
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		n := r.Len()
		_, err := r.WeightsFromMap(map[string]float64{"vcore": 1, "fpga": bad})
		if err == nil || !strings.Contains(err.Error(), `"fpga"`) {
			t.Errorf("weight %v: error %v does not name the resource", bad, err)
		}
		if r.Len() != n {
			t.Errorf("weight %v: a rejected map interned names", bad)
		}
	}
}
