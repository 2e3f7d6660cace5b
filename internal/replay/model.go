package replay

import (
	"fmt"
	"strings"
	"time"
)

// Model is how the replay turns a trace task's request and a machine's
// capacity into what the scheduler sees.
//
// The trace records each task's request: its limit, the most it may use.
// Borg does not schedule everything against limits (Verma et al., "Large-
// scale cluster management at Google with Borg", EuroSys 2015, §5.5): it
// estimates each task's reservation from its usage (the limit at first,
// decaying towards usage plus a safety margin), checks production (prod)
// tasks against limits so they never rely on reclaimed resources, and
// schedules non-prod tasks against the reservations of the tasks already
// running, so batch and free work runs in resources prod tasks reserved
// but do not use (about 20% of a median cell's work runs in reclaimed
// resources). Borg overcommits non-prod work this way for CPU and memory
// alike; a task that then needs more than its machine has is evicted, as
// the trace's EVICT events record.
//
// The replay models this with a charge per tier: the scheduler is asked for
// a task's request times its tier's reservation fraction, per resource.
// Prod tiers are charged their limits by default; non-prod tiers their
// estimated reservation. The 2011 trace's usage table is not bundled, so
// the fractions are assumptions, set so the replay reproduces the trace's
// own scheduling delays on every bundled window (see the package
// documentation), within the ranges the published figures allow: the
// tasks of the 2011 cell request more CPU than the cell has (103% at trace
// start) and nearly all its memory, while its measured usage is well
// below (Reiss et al., "Heterogeneity and dynamicity of clouds at scale",
// SoCC 2012: CPU and memory usage a fraction of what is requested).
//
// ModelLimits is the replay before this model: every task charged its
// request, node CPU overcommitted by DefaultCPUOvercommit, memory not.
type Model string

const (
	// ModelReclaim charges each tier its reservation (the default).
	ModelReclaim Model = "reclaim"
	// ModelLimits charges every task its full request (limit).
	ModelLimits Model = "limits"
)

// Reservation is the share of a task's request the scheduler is asked
// for, per resource: 1 is the request (the limit).
type Reservation struct {
	CPU, Mem float64
}

// Default reservations of the reclaim model. Prod tiers (production,
// monitoring) are checked against their limits, as Borg does; non-prod
// tiers (free, batch, mid) against estimated reservations: 0.6 of their
// CPU request, 0.7 of their memory request. CPU is reclaimed more than
// memory because it is compressible: a task that needs more CPU than its
// machine has left is throttled, one that needs more memory is killed
// (Verma et al. 2015, §6.2), so an estimate may cut CPU closer.
// Assumptions, not measurements (see Model): by the rule of docs/replay.md
// ("Windows"), the largest tenths, CPU first, then memory, that keep every
// tier with over 1,000 tasks within 3x of the trace's p50 and p90 on
// parts 0-1, part 0 and part 1 of the 2011 cell without taking a tier's
// p99 more than 3x further from the trace's: with 0.7 of the CPU request
// free's p90 on parts 0-1 is 34 s against 5 s, the cell charged near its
// whole CPU; with 0.8 of the memory request batch's p99 there is 6m2s
// against 40 s (13 s at 0.7).
var (
	DefaultProdReservation    = Reservation{CPU: 1, Mem: 1}
	DefaultNonProdReservation = Reservation{CPU: 0.6, Mem: 0.7}
)

// DefaultSubmitLatency is the reclaim model's delay between a task's
// submission and its ask reaching the scheduler. Borg's scheduler works
// asynchronously from the Borgmaster: a submitted task is recorded, added
// to the pending queue and picked up by a later scheduling pass. The trace
// shows the floor this leaves: even in an uncontended cell, few tasks are
// scheduled sooner than about 1.3 s after submission (the 5th percentile of
// the bundled window's free, batch and production delays is 0.7-1.4 s,
// their medians 1.7-2.1 s). An assumption taken from those figures: the
// replay's own wait for its next cycle (up to one interval) comes on top.
const DefaultSubmitLatency = time.Second

// DefaultTaskLatency spaces the tasks of one job on their way to the
// scheduler: Borg schedules a job's pending tasks one after another, so a
// job of a thousand tasks submitted at once is not placed in one instant.
// The Borg-like monolithic scheduler of the Omega paper's simulations
// takes 5 ms per task (Schwarzkopf et al., EuroSys 2013: t_task); on the
// bundled window 5 ms puts the replay's batch p50 at 4 s against the
// trace's 2 s, 2 ms at 2 s: an assumption calibrated on the trace.
const DefaultTaskLatency = 2 * time.Millisecond

// DefaultProdTaskLatency spaces the tasks of one prod job: by default as
// a non-prod job's (DefaultTaskLatency).
//
// The option exists because the 2011 cell places some production jobs'
// tasks one after another: the production tasks it takes longer than 10 s
// to place are mostly those of jobs submitted many tasks at once (128
// tasks of one job over 14-88 s, 0.6 s a task; 40 of another over 2-45 s,
// 1.1 s a task), as Borg places prod tasks with more care (spread across
// failure domains, Verma et al. 2015 §3.2). Without the latency tail
// (tail.go), 500 ms brings the bundled window's production p90 to 10 s
// against the trace's 28 s (2 s without),
// but a fixed pace per task does not carry over: on the default synthetic
// 2019 cell, whose production jobs reach 5,000 tasks, it puts production's
// p50 at 6 minutes against the trace's 2 s. So it is not the default.
const DefaultProdTaskLatency = DefaultTaskLatency

// DefaultMemOvercommit multiplies node memory: 1, memory is not
// overcommitted at the node level; the reclaim model charges non-prod
// tasks less instead.
const DefaultMemOvercommit = 1.0

// prodTier reports whether a tier is prod in Borg's sense (the production
// and monitoring bands).
func prodTier(tier int) bool {
	return tiers[tier].name == "production" || tiers[tier].name == "monitoring"
}

// taskLatency is the spacing of the tasks of one job of tier (none when
// negative).
func (o *Options) taskLatency(tier int) time.Duration {
	d := o.TaskLatency
	if prodTier(tier) {
		d = o.ProdTaskLatency
	}
	return max(d, 0)
}

// ParseModel reads a model name.
func ParseModel(s string) (Model, error) {
	switch m := Model(strings.ToLower(strings.TrimSpace(s))); m {
	case ModelReclaim, ModelLimits:
		return m, nil
	case "":
		return ModelReclaim, nil
	}
	return "", fmt.Errorf("unknown resource model %q: want %q or %q", s, ModelReclaim, ModelLimits)
}

// setModelDefaults fills the model's options left zero.
func (o *Options) setModelDefaults() {
	if o.Model == "" {
		o.Model = ModelReclaim
	}
	switch o.Model {
	case ModelLimits:
		if o.CPUOvercommit <= 0 {
			o.CPUOvercommit = DefaultCPUOvercommit
		}
	default:
		if o.CPUOvercommit <= 0 {
			o.CPUOvercommit = 1
		}
		if o.SubmitLatency == 0 {
			o.SubmitLatency = DefaultSubmitLatency
		}
		if o.TaskLatency == 0 {
			o.TaskLatency = DefaultTaskLatency
		}
		if o.ProdTaskLatency == 0 {
			o.ProdTaskLatency = DefaultProdTaskLatency
		}
		if o.ProdReservation == (Reservation{}) {
			o.ProdReservation = DefaultProdReservation
		}
		if o.NonProdReservation == (Reservation{}) {
			o.NonProdReservation = DefaultNonProdReservation
		}
		if o.SchedRate == 0 {
			o.SchedRate = DefaultSchedRate
		}
		if o.SchedBurst <= 0 {
			o.SchedBurst = DefaultSchedBurst
		}
		o.SchedBurst = max(1, o.SchedBurst)
		if o.ClassRate == 0 {
			o.ClassRate = DefaultClassRate
		}
		if o.ClassBurst <= 0 {
			o.ClassBurst = DefaultClassBurst
		}
		o.ClassBurst = max(1, o.ClassBurst)
		o.setTailDefaults()
	}
	if o.MemOvercommit <= 0 {
		o.MemOvercommit = DefaultMemOvercommit
	}
}

// reservation is the share of a request of tier the scheduler is asked
// for.
func (o *Options) reservation(tier int) Reservation {
	if o.Model == ModelLimits {
		return Reservation{CPU: 1, Mem: 1}
	}
	if prodTier(tier) {
		return o.ProdReservation
	}
	return o.NonProdReservation
}

// ModelString describes the model of a replay for the summary.
func (o *Options) ModelString() string {
	if o.Model == ModelLimits {
		return fmt.Sprintf("limits: every task asks for its request; node CPU x%g, memory x%g", o.CPUOvercommit, o.MemOvercommit)
	}
	rate := "no throughput limit"
	if o.SchedRate > 0 {
		rate = fmt.Sprintf("at most %g asks/s (bursts of %g)", o.SchedRate, o.SchedBurst)
		if o.ClassRate > 0 {
			rate += fmt.Sprintf(" and %g classes of a job's like tasks/s (bursts of %g)", o.ClassRate, o.ClassBurst)
		}
		rate += ", highest priority first"
	}
	start := "from the start"
	if o.ReserveAfter > 0 {
		start = fmt.Sprintf("after %s at their request", fmtD(o.ReserveAfter))
	}
	return fmt.Sprintf("reclaim: prod tasks ask for %g CPU / %g memory of their request, non-prod %g / %g %s; node CPU x%g, memory x%g; asks reach the scheduler %s after submission, a job's tasks %s apart (prod %s), %s; %s",
		o.ProdReservation.CPU, o.ProdReservation.Mem, o.NonProdReservation.CPU, o.NonProdReservation.Mem, start, o.CPUOvercommit, o.MemOvercommit,
		fmtD(max(0, o.SubmitLatency)), fmtD(max(0, o.TaskLatency)), fmtD(max(0, o.ProdTaskLatency)), rate, o.tailString())
}
