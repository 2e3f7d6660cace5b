package replay

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/resource"
	"github.com/paddock-sched/paddock/internal/sim/borg"
)

// Sample is one point of the replay's time series.
type Sample struct {
	At       time.Duration // trace time
	CPU, Mem float64       // allocated share of the cluster
	Pending  int           // asks waiting at the scheduler
	Running  int
	Queues   map[string]float64 // CPU share of the cluster per queue
}

// Summary is what a replay measured.
type Summary struct {
	Trace      string
	Model      string        // the resource model and its parameters
	Format     string        // "2011" or "2019"
	Start, End time.Duration // trace time replayed
	// Warmup: the events before Start were replayed too, the delays count
	// from Start (Options.Warmup)
	Warmup bool
	Wall   time.Duration

	Nodes, RejectedNodes, SkippedMachines int
	Jobs                                  int
	Users                                 int // distinct users of the applications
	Submitted, Scheduled, Recovered       int
	Withdrawn, Lost, ZeroRequests         int
	RejectedAsks, RejectedApps            int
	RejectedRecoveries                    int
	// Rejections counts rejection reasons by kind, with one example each.
	Rejections                 map[string]Rejection
	PendingAtEnd, RunningAtEnd int
	Malformed                  int64

	// Cycles counts the scheduling cycles run; Skipped the cycles on the
	// interval grid skipped because nothing could happen in them.
	Cycles, Skipped int

	// Preempted counts allocations the scheduler released as preempted
	// (PREEMPTED_BY_SCHEDULER); they are not in Lost: each is asked for
	// again (requeue.go) and counts in Submitted.
	Preempted int

	// Delays per tier (index into Tiers) and overall, ours and the trace's.
	Delays, TraceDelays [][]time.Duration
	// ModelDelays and SchedDelays split each of our delays (same tier,
	// same index): the modelled latency from the task's submission to its
	// ask reaching the scheduler (the resource model's submission latency
	// and tail, a 2019 batch scheduler's queueing), and the scheduler's
	// own wait from there to the cycle that placed it (waiting for the
	// next cycle, for room, behind other queues). Delays[i][k] is
	// ModelDelays[i][k] + SchedDelays[i][k].
	ModelDelays, SchedDelays [][]time.Duration
	// QueueDelays are our delays per leaf queue (full path) the tasks'
	// applications were placed in.
	QueueDelays map[string][]time.Duration
	Series      []Sample
	LogHash     string

	pendingNow, running int
	hashSum             []byte
}

// Tiers names the priority tiers the delay slices are indexed by.
func Tiers() []string {
	out := make([]string, len(tiers))
	for i, t := range tiers {
		out[i] = t.name
	}
	return out
}

func newSummary(o Options) *Summary {
	return &Summary{
		Trace:       o.Trace,
		Model:       o.ModelString(),
		Start:       o.Start,
		Warmup:      o.Warmup && o.Start > 0,
		Delays:      make([][]time.Duration, len(tiers)),
		TraceDelays: make([][]time.Duration, len(tiers)),
		ModelDelays: make([][]time.Duration, len(tiers)),
		SchedDelays: make([][]time.Duration, len(tiers)),
		QueueDelays: map[string][]time.Duration{},
	}
}

// delay records a placed task's delay d, of which model was the modelled
// latency before its ask reached the scheduler.
func (s *Summary) delay(tier int, d, model time.Duration) {
	s.Delays[tier] = append(s.Delays[tier], d)
	s.ModelDelays[tier] = append(s.ModelDelays[tier], model)
	s.SchedDelays[tier] = append(s.SchedDelays[tier], d-model)
}
func (s *Summary) traceDelay(tier int, d time.Duration) {
	s.TraceDelays[tier] = append(s.TraceDelays[tier], d)
}

// sample reads the scheduler's state at trace time at.
func (s *Summary) sample(sm *sim, at time.Duration) {
	smp := Sample{At: at, Pending: s.pendingNow, Running: s.running, Queues: map[string]float64{}}
	sm.svc.Inspect(func(e *engine.Engine) {
		p, err := e.Partition(rmID, "")
		if err != nil {
			return
		}
		cluster := p.Cluster()
		root := p.Tree().Root
		share := func(v resource.Vector, i resource.Index) float64 {
			if cluster[i] <= 0 {
				return 0
			}
			return float64(v[i]) / float64(cluster[i])
		}
		smp.CPU = share(root.Allocated, resource.VCoreIndex)
		smp.Mem = share(root.Allocated, resource.MemoryIndex)
		for _, q := range root.Children() {
			smp.Queues[q.Name] = share(q.Allocated, resource.VCoreIndex)
		}
	})
	s.Series = append(s.Series, smp)
}

func (s *Summary) finish(sm *sim, wall time.Duration, st borg.Stats) {
	s.Wall = wall
	s.End = sm.now
	s.PendingAtEnd = s.pendingNow
	s.RunningAtEnd = s.running
	s.Malformed = st.Malformed()
	s.hashSum = sm.log.Sum(nil)
	s.LogHash = hex.EncodeToString(s.hashSum)
}

// Percentile returns the p-th percentile (0-100) of ds, 0 for none.
func Percentile(ds []time.Duration, p float64) time.Duration {
	c := slices.Clone(ds)
	slices.Sort(c)
	return sortedPercentile(c, p)
}

// delayLegend explains the delay table under it.
const delayLegend = `  paddock: from the task's submission in the trace to the scheduling cycle that placed it
  (cycles every -interval of trace time); trace: from the same SUBMIT to the trace's own
  SCHEDULE, what the Borg scheduler took. Only tasks submitted in the window count (not those
  running or pending at trace start).
`

// splitLegend explains the table of writeSplit.
const splitLegend = `  modelled: from the submission to the ask reaching Paddock (the resource model's latency);
  scheduler: from there to the cycle that placed it, Paddock's own wait; they add up to the
  delay above, which the fidelity compares with the trace's.
`

// writeSplit prints, per tier, where our delays come from: the modelled
// latency and the scheduler's own wait.
func (s *Summary) writeSplit(b *strings.Builder) {
	fmt.Fprintf(b, "\nwhere the delay comes from     modelled latency: p50 / p90 / p99    scheduler's own wait: p50 / p90 / p99\n")
	row := func(name string, n int, model, sched []time.Duration) {
		fmt.Fprintf(b, "  %-12s %7d tasks   %8s %8s %8s            %8s %8s %8s\n", name, n,
			fmtD(Percentile(model, 50)), fmtD(Percentile(model, 90)), fmtD(Percentile(model, 99)),
			fmtD(Percentile(sched, 50)), fmtD(Percentile(sched, 90)), fmtD(Percentile(sched, 99)))
	}
	row("all", len(all(s.Delays)), all(s.ModelDelays), all(s.SchedDelays))
	for i, t := range tiers {
		if len(s.Delays[i]) > 0 {
			row(t.name, len(s.Delays[i]), s.ModelDelays[i], s.SchedDelays[i])
		}
	}
	b.WriteString(splitLegend)
}

// writeFidelity prints the fidelity table: per tier, the distance between
// the replay's delays and the trace's, and the run's score.
func (s *Summary) writeFidelity(b *strings.Builder) {
	f := s.Fidelity()
	if len(f.Tiers) == 0 {
		return
	}
	fmt.Fprintf(b, "\nfidelity to the trace    KS    log-ratio   p50 & p90 within %gx (or %s)\n", WithinFactor, fmtD(WithinSlack))
	for _, t := range f.Tiers {
		if !t.Compared {
			fmt.Fprintf(b, "  %-12s        -            -   (no trace delays)\n", t.Tier)
			continue
		}
		yes := "no"
		if t.Within {
			yes = "yes"
		}
		lr := fmt.Sprintf("%6.2f", t.LogRatio)
		if t.Ours == 0 {
			lr = "     -" // nothing placed: no quantiles to compare
		}
		fmt.Fprintf(b, "  %-12s     %5.3f    %s      %s\n", t.Tier, t.KS, lr, yes)
	}
	fmt.Fprintf(b, "  fidelity score %.3f (1 - KS weighted by trace tasks; 1 = the trace's delays), mean log-ratio %.2f\n", f.Score, f.LogRatio)
	b.WriteString("  KS: largest gap between the two delay CDFs (0 same, 1 disjoint); log-ratio: mean |log10(paddock/trace)|\n  of p50, p90, p99 from 1s up (1 = a factor of 10)\n")
}

func all(dss [][]time.Duration) []time.Duration {
	var out []time.Duration
	for _, d := range dss {
		out = append(out, d...)
	}
	return out
}

// Utilisation is the mean and the peak over the samples of the allocated
// share of the cluster's CPU and memory.
func (s *Summary) Utilisation() (meanCPU, peakCPU, meanMem, peakMem float64) {
	if len(s.Series) == 0 {
		return 0, 0, 0, 0
	}
	for _, x := range s.Series {
		meanCPU += x.CPU
		meanMem += x.Mem
		peakCPU = max(peakCPU, x.CPU)
		peakMem = max(peakMem, x.Mem)
	}
	n := float64(len(s.Series))
	return meanCPU / n, peakCPU, meanMem / n, peakMem
}

// AllDelays are our delays over every tier.
func (s *Summary) AllDelays() []time.Duration { return all(s.Delays) }

// AllModelDelays are the modelled latencies of our delays over every tier.
func (s *Summary) AllModelDelays() []time.Duration { return all(s.ModelDelays) }

// AllSchedDelays are the scheduler's own waits over every tier.
func (s *Summary) AllSchedDelays() []time.Duration { return all(s.SchedDelays) }

// DecisionsPerSecond is the scheduler's allocations per second of wall
// time.
func (s *Summary) DecisionsPerSecond() float64 {
	if s.Wall <= 0 {
		return 0
	}
	return float64(s.Scheduled+s.Recovered) / s.Wall.Seconds()
}

// SpeedUp is simulated time per wall time.
func (s *Summary) SpeedUp() float64 {
	if s.Wall <= 0 {
		return 0
	}
	from := s.Start
	if s.Warmup {
		from = 0
	}
	return (s.End - from).Seconds() / s.Wall.Seconds()
}

func fmtD(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	default:
		return d.Round(time.Second).String()
	}
}

// String is the text summary printed by paddock replay.
func (s *Summary) String() string {
	var b strings.Builder
	if s.Warmup {
		fmt.Fprintf(&b, "trace          %s (trace time 0s .. %s; delays of the tasks submitted from %s, the events before replayed as a warm-up)\n", s.Trace, fmtD(s.End), fmtD(s.Start))
	} else {
		fmt.Fprintf(&b, "trace          %s (trace time %s .. %s)\n", s.Trace, fmtD(s.Start), fmtD(s.End))
	}
	fmt.Fprintf(&b, "model          %s\n", s.Model)
	fmt.Fprintf(&b, "nodes          %d (%d rejected, %d machines without capacity skipped)\n", s.Nodes, s.RejectedNodes, s.SkippedMachines)
	fmt.Fprintf(&b, "jobs           %d applications of %d users\n", s.Jobs, s.Users)
	fmt.Fprintf(&b, "tasks          %d running at trace start recovered, %d submitted, %d scheduled, %d pending at end, %d withdrawn while pending, %d lost with their node\n",
		s.Recovered, s.Submitted, s.Scheduled, s.PendingAtEnd, s.Withdrawn, s.Lost)
	if s.Preempted > 0 {
		fmt.Fprintf(&b, "preempted      %d allocations preempted by the scheduler, each asked for again\n", s.Preempted)
	}
	if s.RejectedAsks+s.RejectedApps+s.RejectedRecoveries > 0 {
		fmt.Fprintf(&b, "rejected       %d asks (%d of them recoveries), %d applications\n", s.RejectedAsks, s.RejectedRecoveries, s.RejectedApps)
		kinds := make([]string, 0, len(s.Rejections))
		for k := range s.Rejections {
			kinds = append(kinds, k)
		}
		slices.SortFunc(kinds, func(a, b string) int { return s.Rejections[b].Count - s.Rejections[a].Count })
		for _, k := range kinds {
			r := s.Rejections[k]
			fmt.Fprintf(&b, "               %6d x %s (e.g. %s)\n", r.Count, k, r.Example)
		}
	}
	if s.Malformed > 0 {
		fmt.Fprintf(&b, "malformed rows %d (skipped)\n", s.Malformed)
	}
	fmt.Fprintf(&b, "wall time      %s: %.0f scheduler decisions/s, simulated time %.0fx faster than real time\n",
		s.Wall.Round(time.Millisecond), s.DecisionsPerSecond(), s.SpeedUp())
	fmt.Fprintf(&b, "cycles         %d scheduling cycles (%d idle ones skipped)\n", s.Cycles, s.Skipped)
	fmt.Fprintf(&b, "\nscheduling delay (submit to allocation)    paddock: p50 / p90 / p99        trace: p50 / p90 / p99\n")
	row := func(name string, ours, theirs []time.Duration) {
		fmt.Fprintf(&b, "  %-12s %7d tasks   %8s %8s %8s   %7d tasks %8s %8s %8s\n", name, len(ours),
			fmtD(Percentile(ours, 50)), fmtD(Percentile(ours, 90)), fmtD(Percentile(ours, 99)),
			len(theirs), fmtD(Percentile(theirs, 50)), fmtD(Percentile(theirs, 90)), fmtD(Percentile(theirs, 99)))
	}
	row("all", all(s.Delays), all(s.TraceDelays))
	for i, t := range tiers {
		if len(s.Delays[i])+len(s.TraceDelays[i]) > 0 {
			row(t.name, s.Delays[i], s.TraceDelays[i])
		}
	}
	b.WriteString(delayLegend)
	s.writeSplit(&b)
	s.writeFidelity(&b)
	if n := len(s.Series); n > 0 {
		fmt.Fprintf(&b, "\nallocated share of the cluster over time (CPU / memory):\n")
		step := max(1, n/8)
		for i := 0; i < n; i += step {
			x := s.Series[i]
			fmt.Fprintf(&b, "  t=%-8s cpu %5.1f%%  mem %5.1f%%  pending %6d  running %6d\n", fmtD(x.At), 100*x.CPU, 100*x.Mem, x.Pending, x.Running)
		}
	}
	fmt.Fprintf(&b, "\ndecision log sha256 %s\n", s.LogHash)
	return b.String()
}

// Rejection is one kind of rejection the scheduler answered with.
type Rejection struct {
	Count   int
	Example string
}

// reject counts a rejection reason under its kind: the reason without the
// object it names ("allocation 1-2-1: unknown node 55" is "unknown node").
func (s *Summary) reject(reason string) {
	kind := reason
	if i := strings.LastIndex(kind, ": "); i >= 0 {
		kind = kind[i+2:]
	}
	if f := strings.Fields(kind); len(f) > 1 && strings.ContainsAny(f[len(f)-1], "0123456789") {
		kind = strings.Join(f[:len(f)-1], " ")
	}
	if s.Rejections == nil {
		s.Rejections = map[string]Rejection{}
	}
	r := s.Rejections[kind]
	r.Count++
	if r.Example == "" {
		r.Example = reason
	}
	s.Rejections[kind] = r
}
