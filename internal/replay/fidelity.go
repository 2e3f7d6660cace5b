package replay

import (
	"math"
	"slices"
	"time"
)

// Fidelity measures how closely a replay reproduces the scheduling delays
// the trace itself recorded (trace SUBMIT to trace SCHEDULE), tier by tier.
// A simulator earns trust by first reproducing the system it models; these
// figures say how far the replay's baseline is from the cell's.
type Fidelity struct {
	// Tiers has one entry per priority tier with delays on either side,
	// in tier order.
	Tiers []TierFidelity
	// Score is 1 minus the mean KS statistic of the compared tiers,
	// weighted by the trace's task count: 1 means every compared tier's
	// delay distribution is the trace's, 0 that none overlaps it. 0 when no
	// tier has trace delays.
	Score float64
	// LogRatio is the mean of the tiers' LogRatio with the same weights.
	LogRatio float64
}

// TierFidelity compares one tier's delays with the trace's.
type TierFidelity struct {
	Tier        string
	Ours, Trace int // delays measured on each side
	// Compared: the trace has delays for this tier, so it counts in the
	// score (a tier the trace has but the replay never placed compares as
	// KS 1).
	Compared bool
	// KS is the two-sample Kolmogorov-Smirnov statistic: the largest
	// vertical distance between the two empirical CDFs, 0 (same
	// distribution) to 1 (disjoint).
	KS float64
	// LogRatio is the mean over p50, p90 and p99 of |log10(ours/trace)|,
	// both floored at FidelityFloor: 0 is equal, 1 is a factor of 10 on
	// average; 0 when either side has no delays (KS says how far).
	LogRatio float64
	// Within: p50 and p90 are both within a factor of WithinFactor of the
	// trace's, or within WithinSlack of it where the trace's value is under
	// WithinSlack.
	Within bool
}

// The fidelity constants. FidelityFloor: delays shorter than one default
// scheduling interval are not resolved by the replay, so quantiles are
// compared from 1 s up. WithinFactor and WithinSlack define TierFidelity.Within.
const (
	FidelityFloor = time.Second
	WithinFactor  = 3.0
	WithinSlack   = 10 * time.Second
)

// Fidelity compares the replay's delays with the trace's, per tier.
func (s *Summary) Fidelity() Fidelity {
	var f Fidelity
	var weight float64
	for i, t := range tiers {
		ours, theirs := s.Delays[i], s.TraceDelays[i]
		if len(ours)+len(theirs) == 0 {
			continue
		}
		tf := compareDelays(ours, theirs)
		tf.Tier = t.name
		f.Tiers = append(f.Tiers, tf)
		if tf.Compared {
			w := float64(tf.Trace)
			weight += w
			f.Score += w * (1 - tf.KS)
			f.LogRatio += w * tf.LogRatio
		}
	}
	if weight > 0 {
		f.Score /= weight
		f.LogRatio /= weight
	}
	return f
}

// compareDelays compares two delay samples (ours, the trace's).
func compareDelays(ours, theirs []time.Duration) TierFidelity {
	tf := TierFidelity{Ours: len(ours), Trace: len(theirs), Compared: len(theirs) > 0}
	if len(ours) == 0 || len(theirs) == 0 {
		tf.KS = 1
		if len(ours)+len(theirs) == 0 {
			tf.KS = 0
		}
		return tf
	}
	a, b := slices.Clone(ours), slices.Clone(theirs)
	slices.Sort(a)
	slices.Sort(b)
	tf.KS = KolmogorovSmirnov(a, b)
	for _, p := range []float64{50, 90, 99} {
		tf.LogRatio += math.Abs(logRatio(sortedPercentile(a, p), sortedPercentile(b, p)))
	}
	tf.LogRatio /= 3
	tf.Within = Within(sortedPercentile(a, 50), sortedPercentile(b, 50)) &&
		Within(sortedPercentile(a, 90), sortedPercentile(b, 90))
	return tf
}

// KolmogorovSmirnov returns the two-sample Kolmogorov-Smirnov statistic of
// two sorted samples: sup over x of |F_a(x) - F_b(x)|, with ties handled
// (both CDFs step past a shared value together). 0 when either is empty.
func KolmogorovSmirnov(a, b []time.Duration) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	n, m := float64(len(a)), float64(len(b))
	var i, j int
	var d float64
	for i < len(a) && j < len(b) {
		v := min(a[i], b[j])
		for i < len(a) && a[i] == v {
			i++
		}
		for j < len(b) && b[j] == v {
			j++
		}
		d = max(d, math.Abs(float64(i)/n-float64(j)/m))
	}
	// one sample is exhausted: its CDF is 1, the other's only grows to 1,
	// so the last step above was the largest gap on this side
	return d
}

// logRatio is log10(ours/trace) with both floored at FidelityFloor.
func logRatio(ours, trace time.Duration) float64 {
	return math.Log10(float64(max(ours, FidelityFloor)) / float64(max(trace, FidelityFloor)))
}

// Within reports whether a delay quantile of the replay is close to the
// trace's: within WithinFactor either way, or within WithinSlack where the
// trace's value is under WithinSlack.
func Within(ours, trace time.Duration) bool {
	if trace < WithinSlack {
		d := ours - trace
		return d <= WithinSlack && d >= -WithinSlack
	}
	return float64(ours) <= WithinFactor*float64(trace) && WithinFactor*float64(ours) >= float64(trace)
}

// sortedPercentile is Percentile of an already sorted sample.
func sortedPercentile(c []time.Duration, p float64) time.Duration {
	if len(c) == 0 {
		return 0
	}
	return c[int(p/100*float64(len(c)-1))]
}
