package whatif

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/replay"
)

// Pair is both replays under one seed of the model's random draws.
type Pair struct {
	Seed uint64
	A, B *replay.Summary
}

// DefaultSeeds is how many seeds RunSeeds is given by paddock whatif when
// the model draws.
const DefaultSeeds = 5

// RunSeeds compares a and b as Run does, and when o's model draws random
// latencies (replay.Options.RandomDraws) replays both under seeds 0 … n-1
// (seed 0, the replay's default draw, is the result's A and B), so
// Intervals can say whether a difference is larger than the noise of the
// draws. Without draws, or with n < 2, it is Run.
func RunSeeds(o replay.Options, a, b Config, n int) (*Result, error) {
	if n < 2 || !o.RandomDraws() {
		return Run(o, a, b)
	}
	var res *Result
	for seed := range uint64(n) {
		so := o
		so.Seed = seed
		r, err := Run(so, a, b)
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", seed, err)
		}
		if res == nil {
			res = r
		}
		res.Seeds = append(res.Seeds, Pair{Seed: seed, A: r.A, B: r.B})
	}
	return res, nil
}

// Interval is B - A of one delay figure over the seeds: the mean and a 95%
// Student-t interval of the mean.
type Interval struct {
	Section, Name string
	N             int
	Mean, Lo, Hi  time.Duration
}

// Beyond reports whether the interval excludes 0: the difference is larger
// than the noise of the draws.
func (iv Interval) Beyond() bool { return iv.Lo > 0 || iv.Hi < 0 }

// intervalSections are the sections whose quantiles get an interval: the
// scheduler's own wait first, then the delay the fidelity compares.
var intervalSections = []string{SectionSchedAll, SectionSchedTier, SectionDelayAll, SectionDelayTier}

// Intervals gives, for the delay quantiles of the scheduler's own wait and
// of the whole delay, overall and per tier, B - A over the seeds. None
// without seeds.
func (r *Result) Intervals() []Interval {
	if len(r.Seeds) < 2 {
		return nil
	}
	var order []string
	diffs := map[string][]float64{}
	for _, p := range r.Seeds {
		for _, row := range (&Result{A: p.A, B: p.B}).Rows() {
			if row.Kind != Delay || !inSections(row.Section) {
				continue
			}
			k := row.Section + "\x00" + row.Name
			if _, ok := diffs[k]; !ok {
				order = append(order, k)
			}
			diffs[k] = append(diffs[k], row.B-row.A)
		}
	}
	var out []Interval
	for _, k := range order {
		ds := diffs[k]
		sec, name, _ := strings.Cut(k, "\x00")
		out = append(out, interval(sec, name, ds))
	}
	return out
}

func inSections(sec string) bool {
	for _, s := range intervalSections {
		if s == sec {
			return true
		}
	}
	return false
}

// interval is the mean of ds with a 95% Student-t interval (a figure only
// one side has under some seed counts as 0 there).
func interval(sec, name string, ds []float64) Interval {
	n := float64(len(ds))
	var mean, ss float64
	for _, d := range ds {
		mean += d
	}
	mean /= n
	for _, d := range ds {
		ss += (d - mean) * (d - mean)
	}
	half := 0.0
	if len(ds) > 1 {
		half = tQuantile(len(ds)-1) * math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	}
	return Interval{Section: sec, Name: name, N: len(ds), Mean: time.Duration(mean),
		Lo: time.Duration(mean - half), Hi: time.Duration(mean + half)}
}

// tQuantile is Student's t 97.5th percentile for df degrees of freedom.
func tQuantile(df int) float64 {
	t := []float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086}
	if df >= 1 && df <= len(t) {
		return t[df-1]
	}
	return 1.96
}

// writeIntervals prints the seed intervals, if any.
func (r *Result) writeIntervals(b *strings.Builder) {
	ivs := r.Intervals()
	if len(ivs) == 0 {
		return
	}
	fmt.Fprintf(b, "\nB - A over %d seeds of the model's random draws: mean [95%% interval]; * larger than the noise\n", len(r.Seeds))
	section := ""
	for _, iv := range ivs {
		if iv.Section != section {
			section = iv.Section
			fmt.Fprintf(b, "%s\n", section)
		}
		mark := ""
		if iv.Beyond() {
			mark = " *"
		}
		fmt.Fprintf(b, "  %-32s %10s   [%s, %s]%s\n", iv.Name, signed(iv.Mean), signed(iv.Lo), signed(iv.Hi), mark)
	}
}

func signed(d time.Duration) string {
	if d > 0 {
		return "+" + fmtDelay(d)
	}
	return fmtDelay(d)
}
