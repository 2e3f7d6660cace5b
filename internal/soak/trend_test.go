package soak

import (
	"math"
	"strings"
	"testing"
	"time"
)

// series makes samples every second for n seconds with goroutines and
// heap given by f.
func series(n int, f func(t float64) (goroutines int, heap uint64)) []Sample {
	var out []Sample
	for i := range n {
		g, h := f(float64(i))
		out = append(out, Sample{At: time.Duration(i) * time.Second, Goroutines: g, HeapLive: h})
	}
	return out
}

func TestTrendsFlatWithNoisePasses(t *testing.T) {
	// in-flight requests and garbage: spikes that come and go
	samples := series(60, func(x float64) (int, uint64) {
		g := 100
		if int(x)%7 == 0 {
			g += 40
		}
		return g, uint64(50<<20 + 8<<20*math.Sin(x))
	})
	tr, err := Trends(samples, 15*time.Second, DefaultTolerances)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) != 2 {
		t.Fatalf("want goroutines and heap (RSS never measured), got %v", tr)
	}
	for _, x := range tr {
		if x.Exceeded() {
			t.Errorf("noise taken for growth: %v", x)
		}
	}
}

func TestTrendsLinearGrowthFails(t *testing.T) {
	// one goroutine and 64 KiB per request, 20 requests a second
	samples := series(60, func(x float64) (int, uint64) {
		return 100 + int(20*x), uint64(50<<20 + 20*(64<<10)*x)
	})
	tr, err := Trends(samples, 15*time.Second, DefaultTolerances)
	if err != nil {
		t.Fatal(err)
	}
	g := tr[0]
	if g.Metric != Goroutines || !g.Exceeded() {
		t.Fatalf("goroutines growing 20/s not caught: %v", g)
	}
	if math.Abs(g.SlopePerMinute-1200) > 1e-6 {
		t.Errorf("slope %v per minute, want 1200", g.SlopePerMinute)
	}
	// 45 post-warm-up samples, windows of 11: medians at 20 s and 54 s
	if g.First != 100+20*20 || g.Last != 100+20*54 {
		t.Errorf("window medians %v and %v, want 500 and 1180", g.First, g.Last)
	}
	if !tr[1].Exceeded() {
		t.Errorf("heap growing 1.25 MiB/s not caught: %v", tr[1])
	}
	if !strings.Contains(g.String(), "GROWING") {
		t.Errorf("report does not say so: %s", g)
	}
}

func TestTrendsGrowthDuringWarmUpIgnored(t *testing.T) {
	// filling bounded buffers: growth that stops
	samples := series(60, func(x float64) (int, uint64) {
		return 100, uint64(10<<20 + min(x, 14)*(8<<20))
	})
	tr, err := Trends(samples, 15*time.Second, DefaultTolerances)
	if err != nil {
		t.Fatal(err)
	}
	if tr[1].Exceeded() || tr[1].Growth() != 0 {
		t.Errorf("growth that ended in the warm-up counted: %v", tr[1])
	}
	all, _ := Trends(samples, 0, DefaultTolerances)
	if !all[1].Exceeded() {
		t.Errorf("without the warm-up the fill should count as growth: %v", all[1])
	}
}

func TestTrendsNeedSamples(t *testing.T) {
	if _, err := Trends(series(10, func(float64) (int, uint64) { return 1, 1 }), 5*time.Second, DefaultTolerances); err == nil {
		t.Fatal("5 samples after warm-up accepted")
	}
}
