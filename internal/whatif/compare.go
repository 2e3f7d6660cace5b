package whatif

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/replay"
)

// Kind says how a row's values read.
type Kind uint8

// Row kinds.
const (
	Count Kind = iota // a number of things
	Delay             // a duration in nanoseconds
	Share             // a share between 0 and 1
)

// Row is one figure of both replays.
type Row struct {
	Section string
	Name    string
	Kind    Kind
	A, B    float64
}

// Differs reports whether the two replays differ on the row.
func (r Row) Differs() bool { return r.A != r.B }

// Sections of the comparison, in the order they are printed: the
// scheduler's own wait first (what a queue configuration changes), then
// the modelled latency before the ask reached the scheduler, then their
// sum, the delay the fidelity compares with the trace.
const (
	SectionTasks      = "tasks"
	SectionSchedAll   = "scheduler's own wait (ask at Paddock to placement), all tiers"
	SectionSchedTier  = "scheduler's own wait per priority tier"
	SectionModelAll   = "modelled latency (submission to the ask reaching Paddock), all tiers"
	SectionModelTier  = "modelled latency per priority tier"
	SectionDelayAll   = "scheduling delay (submit to allocation: the two above added), all tiers"
	SectionDelayTier  = "scheduling delay per priority tier"
	SectionDelayQueue = "scheduling delay per queue"
	SectionAllocation = "allocated share of the cluster"
)

// Rows lists every compared figure.
func (r *Result) Rows() []Row {
	a, b := r.A, r.B
	var rows []Row
	add := func(sec, name string, k Kind, va, vb float64) {
		rows = append(rows, Row{Section: sec, Name: name, Kind: k, A: va, B: vb})
	}
	count := func(name string, f func(*replay.Summary) int) {
		add(SectionTasks, name, Count, float64(f(a)), float64(f(b)))
	}
	count("submitted", func(s *replay.Summary) int { return s.Submitted })
	count("scheduled", func(s *replay.Summary) int { return s.Scheduled })
	count("pending at end", func(s *replay.Summary) int { return s.PendingAtEnd })
	count("running at end", func(s *replay.Summary) int { return s.RunningAtEnd })
	count("preempted", func(s *replay.Summary) int { return s.Preempted })
	count("lost with their node", func(s *replay.Summary) int { return s.Lost })
	count("rejected asks", func(s *replay.Summary) int { return s.RejectedAsks })
	count("rejected applications", func(s *replay.Summary) int { return s.RejectedApps })

	delays := func(sec, name string, da, db []time.Duration) {
		prefix := ""
		if name != "" {
			prefix = name + " "
		}
		add(sec, prefix+"tasks", Count, float64(len(da)), float64(len(db)))
		for _, p := range []float64{50, 90, 99} {
			add(sec, fmt.Sprintf("%sp%.0f", prefix, p), Delay,
				float64(replay.Percentile(da, p)), float64(replay.Percentile(db, p)))
		}
	}
	perTier := func(all, tier string, sumA, sumB []time.Duration, of func(*replay.Summary) [][]time.Duration) {
		delays(all, "", sumA, sumB)
		da, db := of(a), of(b)
		for i, t := range replay.Tiers() {
			if len(da[i])+len(db[i]) > 0 {
				delays(tier, t, da[i], db[i])
			}
		}
	}
	perTier(SectionSchedAll, SectionSchedTier, a.AllSchedDelays(), b.AllSchedDelays(), func(s *replay.Summary) [][]time.Duration { return s.SchedDelays })
	perTier(SectionModelAll, SectionModelTier, a.AllModelDelays(), b.AllModelDelays(), func(s *replay.Summary) [][]time.Duration { return s.ModelDelays })
	perTier(SectionDelayAll, SectionDelayTier, a.AllDelays(), b.AllDelays(), func(s *replay.Summary) [][]time.Duration { return s.Delays })
	for _, q := range queues(a, b) {
		delays(SectionDelayQueue, q, a.QueueDelays[q], b.QueueDelays[q])
	}

	ca, pca, ma, pma := a.Utilisation()
	cb, pcb, mb, pmb := b.Utilisation()
	add(SectionAllocation, "CPU mean", Share, ca, cb)
	add(SectionAllocation, "CPU peak", Share, pca, pcb)
	add(SectionAllocation, "memory mean", Share, ma, mb)
	add(SectionAllocation, "memory peak", Share, pma, pmb)
	return rows
}

// queues is the sorted union of the queues either replay placed tasks in.
func queues(a, b *replay.Summary) []string {
	var qs []string
	for _, s := range []*replay.Summary{a, b} {
		for q := range s.QueueDelays {
			if !slices.Contains(qs, q) {
				qs = append(qs, q)
			}
		}
	}
	slices.Sort(qs)
	return qs
}

// Differences counts the rows on which the replays differ.
func (r *Result) Differences() int {
	n := 0
	for _, row := range r.Rows() {
		if row.Differs() {
			n++
		}
	}
	return n
}

func format(k Kind, v float64) string {
	switch k {
	case Delay:
		return fmtDelay(time.Duration(v))
	case Share:
		return fmt.Sprintf("%.1f%%", 100*v)
	}
	return fmt.Sprintf("%.0f", v)
}

func fmtDelay(d time.Duration) string {
	neg := d < 0
	if neg {
		d = -d
	}
	var s string
	switch {
	case d == 0:
		s = "0s"
	case d < time.Second:
		s = fmt.Sprintf("%dms", d.Milliseconds())
	default:
		s = d.Round(time.Second).String()
	}
	if neg {
		return "-" + s
	}
	return s
}

// diff formats B - A: "=" when equal, a signed difference otherwise, with
// the relative change for counts.
func diff(row Row) string {
	if !row.Differs() {
		return "="
	}
	d := row.B - row.A
	sign := "+"
	if d < 0 {
		sign = ""
	}
	switch row.Kind {
	case Delay:
		return sign + fmtDelay(time.Duration(d))
	case Share:
		return fmt.Sprintf("%s%.1f pt", sign, 100*d)
	}
	s := fmt.Sprintf("%s%.0f", sign, d)
	if row.A != 0 {
		s += fmt.Sprintf(" (%s%.1f%%)", sign, 100*d/math.Abs(row.A))
	}
	return s
}

// String prints the two replays side by side with their differences.
func (r *Result) String() string {
	var b strings.Builder
	a := r.A
	fmt.Fprintf(&b, "what-if        A: %s\n               B: %s\n", r.NameA, r.NameB)
	fmt.Fprintf(&b, "trace          %s (trace time %s .. %s)\n", a.Trace, fmtDelay(a.Start), fmtDelay(a.End))
	fmt.Fprintf(&b, "wall time      A %s, B %s (replayed side by side)\n", a.Wall.Round(time.Millisecond), r.B.Wall.Round(time.Millisecond))
	fmt.Fprintf(&b, "\n%-34s %14s %14s   %s\n", "", "A", "B", "B - A")
	section := ""
	for _, row := range r.Rows() {
		if row.Section != section {
			section = row.Section
			fmt.Fprintf(&b, "%s\n", section)
		}
		fmt.Fprintf(&b, "  %-32s %14s %14s   %s\n", row.Name, format(row.Kind, row.A), format(row.Kind, row.B), diff(row))
	}
	r.writeIntervals(&b)
	fmt.Fprintf(&b, "\ndecision log sha256\n  A %s\n  B %s\n", a.LogHash, r.B.LogHash)
	n, total := r.Differences(), len(r.Rows())
	switch {
	case r.SameDecisions() && n == 0:
		fmt.Fprintf(&b, "same decisions: no differences in %d figures\n", total)
	case r.SameDecisions():
		fmt.Fprintf(&b, "same decisions, yet %d of %d figures differ\n", n, total)
	default:
		fmt.Fprintf(&b, "different decisions: %d of %d figures differ\n", n, total)
	}
	return b.String()
}
