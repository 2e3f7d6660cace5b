package soak

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Sample is one measurement of the process during a soak.
type Sample struct {
	// At is the time since the soak started.
	At time.Duration
	// Goroutines is runtime.NumGoroutine.
	Goroutines int
	// HeapLive is the heap marked live by the last garbage collection
	// (runtime/metrics /gc/heap/live:bytes).
	HeapLive uint64
	// RSS is the resident set size (VmRSS of /proc/self/status; 0 where
	// that is not available).
	RSS uint64
	// Allocations, Requests and Records count what the load did so far:
	// allocations the RM got, REST requests, event stream records read.
	Allocations, Requests, Records int64
}

// Metric names the measured series.
type Metric int

const (
	Goroutines Metric = iota
	HeapLive
	RSS
	numMetrics
)

var metricNames = [numMetrics]string{"goroutines", "heap live", "RSS"}

func (m Metric) String() string { return metricNames[m] }

func (m Metric) of(s Sample) float64 {
	switch m {
	case Goroutines:
		return float64(s.Goroutines)
	case HeapLive:
		return float64(s.HeapLive)
	default:
		return float64(s.RSS)
	}
}

// format shows a value of the metric: a count or MiB.
func (m Metric) format(v float64) string {
	if m == Goroutines {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f MiB", v/(1<<20))
}

// Tolerance is how much a metric may grow after warm-up: the median of
// the last window may exceed the median of the first window by at most
// Abs + Rel x the first window's median.
type Tolerance struct {
	Abs, Rel float64
}

// DefaultTolerances are generous enough for a loaded 2-core machine
// (in-flight requests and garbage come and go) and tight enough that a
// leak of one goroutine per request fails a 60 s soak (its load makes
// about 30 requests a second), as does one of some 20 KiB per request;
// over an hour, the heap's bound catches a leak of a few hundred bytes
// per request.
var DefaultTolerances = [numMetrics]Tolerance{
	Goroutines: {Abs: 50, Rel: 0.10},
	HeapLive:   {Abs: 16 << 20, Rel: 0.25},
	RSS:        {Abs: 64 << 20, Rel: 0.25},
}

// WindowFraction is the share of the post-warm-up samples in each of the
// first and last windows compared.
const WindowFraction = 0.25

// Trend is one metric's course after warm-up.
type Trend struct {
	Metric Metric
	// SlopePerMinute is the least-squares slope over all post-warm-up
	// samples, in the metric's unit per minute.
	SlopePerMinute float64
	// First and Last are the medians of the first and last windows.
	First, Last float64
	// Allowed is the most Last-First may be.
	Allowed float64
}

// Growth is Last - First.
func (t Trend) Growth() float64 { return t.Last - t.First }

// Exceeded says whether the growth is beyond the tolerance.
func (t Trend) Exceeded() bool { return t.Growth() > t.Allowed }

func (t Trend) String() string {
	verdict := "ok"
	if t.Exceeded() {
		verdict = "GROWING"
	}
	m := t.Metric
	slope := m.format(t.SlopePerMinute)
	return fmt.Sprintf("%-10s first window %s, last window %s, growth %s (allowed %s), slope %s/min: %s",
		m, m.format(t.First), m.format(t.Last), m.format(t.Growth()), m.format(t.Allowed), slope, verdict)
}

// Trends computes each metric's trend over the samples taken at or after
// warmUp. It needs at least 8 such samples. A metric that was never
// measured (RSS off Linux) is left out.
func Trends(samples []Sample, warmUp time.Duration, tol [numMetrics]Tolerance) ([]Trend, error) {
	var after []Sample
	for _, s := range samples {
		if s.At >= warmUp {
			after = append(after, s)
		}
	}
	if len(after) < 8 {
		return nil, fmt.Errorf("only %d samples after the warm-up of %v: need at least 8 (run longer or sample more often)", len(after), warmUp)
	}
	w := max(int(float64(len(after))*WindowFraction), 2)
	var out []Trend
	for m := range numMetrics {
		ys := make([]float64, len(after))
		measured := false
		for i, s := range after {
			ys[i] = m.of(s)
			measured = measured || ys[i] != 0
		}
		if !measured {
			continue
		}
		t := Trend{Metric: m, First: median(ys[:w]), Last: median(ys[len(ys)-w:])}
		t.Allowed = tol[m].Abs + tol[m].Rel*t.First
		t.SlopePerMinute = slope(after, ys) * 60
		out = append(out, t)
	}
	return out, nil
}

// slope is the least-squares slope of ys over the samples' times, per
// second.
func slope(samples []Sample, ys []float64) float64 {
	n := float64(len(ys))
	var sx, sy float64
	for i, s := range samples {
		sx += s.At.Seconds()
		sy += ys[i]
	}
	mx, my := sx/n, sy/n
	var sxy, sxx float64
	for i, s := range samples {
		dx := s.At.Seconds() - mx
		sxy += dx * (ys[i] - my)
		sxx += dx * dx
	}
	if sxx == 0 {
		return 0
	}
	return sxy / sxx
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Report is the outcome of a soak.
type Report struct {
	Samples []Sample
	WarmUp  time.Duration
	Trends  []Trend
	// Errors counts failed RM calls and REST requests; FirstError
	// describes one.
	Errors     int64
	FirstError string
}

// Failed says whether a metric grew beyond its tolerance or a request
// failed.
func (r *Report) Failed() bool {
	if r.Errors > 0 {
		return true
	}
	for _, t := range r.Trends {
		if t.Exceeded() {
			return true
		}
	}
	return false
}

func (r *Report) String() string {
	var b strings.Builder
	if n := len(r.Samples); n > 0 {
		last := r.Samples[n-1]
		fmt.Fprintf(&b, "%d samples over %v (warm-up %v excluded); load: %d allocations, %d REST requests, %d event records streamed; %d errors\n",
			n, last.At.Round(time.Second), r.WarmUp, last.Allocations, last.Requests, last.Records, r.Errors)
	}
	if r.FirstError != "" {
		fmt.Fprintf(&b, "first error: %s\n", r.FirstError)
	}
	for _, t := range r.Trends {
		b.WriteString(t.String())
		b.WriteByte('\n')
	}
	return b.String()
}
