package replay

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/strhash"
)

// The latency tail of the reclaim model.
//
// In the 2011 cell most tasks of every tier are scheduled 1-2 s after
// their submission, but not all: a tenth of the production band's tasks
// wait more than half a minute (p90 of all bundled events 38 s), whatever
// the size of their job (p90 25 s for single-task jobs, 31 s for jobs of
// 2-9 tasks, 27 s for 10-99), while the cell has room for them (the
// replay, charging them their limits, places nine in ten within 2 s). The
// wait goes with latency sensitivity: the trace's scheduling class 3
// ("more latency-sensitive", Reiss et al., trace format + schema, 2011)
// has a production p50 of 29 s, classes 0-1 of 1.6 s. Borg gives prod
// work care: its scoring spreads a job's tasks across power and failure
// domains and it may preempt lower-priority tasks to make room (Verma et
// al., EuroSys 2015, §3.2). The trace records the resulting wait, not its
// cause, and the replay's scheduler has neither step, so the model draws
// the wait: a task of a tier in TailTiers reaches the scheduler after a
// lognormal latency whose median is SubmitLatency and whose p90 is
// TailP90 (a task that would draw less than the median waits the median,
// the floor every tier has), at most TailMax.
//
// Assumptions: the lognormal shape, and the 2019 mid band (116-119,
// absent from the 2011 trace) waiting like production. TailP90 (25 s)
// sits between the production p90s the 2011 cell shows on the bundled
// windows (3 s on the second shard alone, 28 s on the default 93 minutes,
// 38 s on all bundled events, 57 s from 1 h to 2 h): one value for every
// window, not fitted to one. TailMax (90 s) cuts the lognormal's far tail
// (its p99 would be nearly 6 minutes, and 0.1% of the tasks would wait
// over half an hour): the cell's longest production wait on all bundled
// events is 89 s, its p99 79 s.
//
// The draw is a function of the task's ask key (job, index, submission
// count), not of the order in which tasks arrive.

// DefaultTailP90 is the reclaim model's p90 of the latency of the tiers in
// DefaultTailTiers.
const DefaultTailP90 = 25 * time.Second

// DefaultTailMax is the reclaim model's longest tail latency.
const DefaultTailMax = 90 * time.Second

// DefaultTailTiers are the tiers whose submission latency has the tail:
// mid, production and monitoring, the non-best-effort bands.
var DefaultTailTiers = []string{"mid", "production", "monitoring"}

// z90 is the standard normal's 90th percentile.
const z90 = 1.2815515655446004

// ParseTiers reads a comma-separated list of tier names ("" none).
func ParseTiers(s string) ([]string, error) {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		if tierIndex(f) < 0 {
			names := make([]string, len(tiers))
			for i, t := range tiers {
				names[i] = t.name
			}
			return nil, fmt.Errorf("unknown tier %q: want some of %s", f, strings.Join(names, ","))
		}
		out = append(out, f)
	}
	return out, nil
}

func tierIndex(name string) int {
	for i, t := range tiers {
		if t.name == name {
			return i
		}
	}
	return -1
}

// setTailDefaults fills the tail options of the reclaim model.
func (o *Options) setTailDefaults() {
	if o.TailP90 == 0 {
		o.TailP90 = DefaultTailP90
	}
	if o.TailMax == 0 {
		o.TailMax = DefaultTailMax
	}
	if o.TailTiers == nil {
		o.TailTiers = DefaultTailTiers
	}
	o.tail = [5]bool{}
	for _, n := range o.TailTiers {
		if i := tierIndex(n); i >= 0 {
			o.tail[i] = true
		}
	}
}

// tailSigma is the lognormal's sigma for a median of SubmitLatency and a
// p90 of TailP90, 0 when there is no tail.
func (o *Options) tailSigma() float64 {
	if o.Model == ModelLimits || o.SubmitLatency <= 0 || o.TailP90 <= o.SubmitLatency {
		return 0
	}
	return math.Log(float64(o.TailP90)/float64(o.SubmitLatency)) / z90
}

// tailExtra is how much longer than SubmitLatency the ask of key (a task
// of tier) takes to reach the scheduler: 0 outside the tail tiers.
func (o *Options) tailExtra(tier int, key string) time.Duration {
	sigma := o.tailSigma()
	if sigma == 0 || !o.tail[tier] {
		return 0
	}
	if o.Seed != 0 {
		key += "#" + strconv.FormatUint(o.Seed, 10)
	}
	z := normalOf(key)
	if z <= 0 {
		return 0
	}
	d := time.Duration(float64(o.SubmitLatency) * (math.Exp(sigma*z) - 1))
	if o.TailMax > 0 {
		d = min(d, max(0, o.TailMax-o.SubmitLatency))
	}
	return d
}

// RandomDraws reports whether a replay with these options draws random
// latencies (a latency tail on some tier), so that its delays depend on
// Seed.
func (o Options) RandomDraws() bool {
	o.setModelDefaults()
	if o.tailSigma() == 0 {
		return false
	}
	for _, on := range o.tail {
		if on {
			return true
		}
	}
	return false
}

// normalOf maps a key to a standard normal value, the same for the same
// key: strhash.Of to a uniform in (0,1), through the normal's inverse CDF.
func normalOf(key string) float64 {
	u := (float64(strhash.Of(key)>>11) + 0.5) / (1 << 53)
	return math.Sqrt2 * math.Erfinv(2*u-1)
}

// tailString describes the tail for the summary.
func (o *Options) tailString() string {
	if o.tailSigma() == 0 {
		return "no latency tail"
	}
	var names []string
	for i, t := range tiers {
		if o.tail[i] {
			names = append(names, t.name)
		}
	}
	if len(names) == 0 {
		return "no latency tail"
	}
	lim := "no maximum"
	if o.TailMax > 0 {
		lim = "at most " + fmtD(o.TailMax)
	}
	return fmt.Sprintf("%s: latency lognormal, p50 %s, p90 %s, %s", strings.Join(names, ", "), fmtD(o.SubmitLatency), fmtD(o.TailP90), lim)
}
