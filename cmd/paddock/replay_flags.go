package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/replay"
)

// replayFlags are the trace, window and speed options that replay and
// whatif share.
type replayFlags struct {
	trace, start, end *string
	warmup            *bool
	interval          *time.Duration
	overcommit        *float64
	memOvercommit     *float64
	model             *string
	reserveCPU        *float64
	reserveMem        *float64
	prodCPU, prodMem  *float64
	latency           *time.Duration
	taskLatency       *time.Duration
	prodTaskLatency   *time.Duration
	tailP90           *time.Duration
	tailTiers         *string
	tailMax           *time.Duration
	reserveAfter      *time.Duration
	schedRate         *float64
	schedBurst        *float64
	classRate         *float64
	classBurst        *float64
	quiet             *bool
}

func addReplayFlags(fs *flag.FlagSet) *replayFlags {
	return &replayFlags{
		trace:           fs.String("trace", defaultTrace, "trace directory (2011 CSV or 2019 JSON export)"),
		start:           fs.String("start", "", "count delays from this trace time (seconds or duration); the events before are replayed as a warm-up (see -warmup)"),
		warmup:          fs.Bool("warmup", true, "with -start: replay the events before -start so the cell is in the trace's state there (false: skip them, faster, but tasks running at trace start never end before -start and those submitted before it never run)"),
		end:             fs.String("end", "5598", "stop at this trace time (seconds or duration; 0 = end of the trace)"),
		interval:        fs.Duration("interval", time.Second, "trace time between scheduling cycles"),
		quiet:           fs.Bool("quiet", false, "no progress output"),
		overcommit:      fs.Float64("cpu-overcommit", 0, fmt.Sprintf("multiply node CPU capacity (0: the model's default, reclaim 1, limits %g)", replay.DefaultCPUOvercommit)),
		memOvercommit:   fs.Float64("mem-overcommit", replay.DefaultMemOvercommit, "multiply node memory capacity"),
		model:           fs.String("model", string(replay.ModelReclaim), "resource model: reclaim (non-prod tasks ask for an estimated reservation, prod for its limit, as Borg schedules) or limits (every task asks for its full request, the replay before reclamation)"),
		reserveCPU:      fs.Float64("reserve-cpu", replay.DefaultNonProdReservation.CPU, "reclaim model: share of a non-prod (free, batch, mid) task's CPU request it asks for"),
		reserveMem:      fs.Float64("reserve-mem", replay.DefaultNonProdReservation.Mem, "reclaim model: share of a non-prod task's memory request it asks for"),
		prodCPU:         fs.Float64("prod-reserve-cpu", replay.DefaultProdReservation.CPU, "reclaim model: share of a prod (production, monitoring) task's CPU request it asks for"),
		prodMem:         fs.Float64("prod-reserve-mem", replay.DefaultProdReservation.Mem, "reclaim model: share of a prod task's memory request it asks for"),
		taskLatency:     fs.Duration("task-latency", 0, fmt.Sprintf("spacing of one job's tasks on their way to the scheduler (0: the model's default, reclaim %s, limits none; negative: none)", replay.DefaultTaskLatency)),
		prodTaskLatency: fs.Duration("prod-task-latency", 0, fmt.Sprintf("spacing of one prod (production, monitoring) job's tasks (0: the model's default, reclaim %s, limits none; negative: none)", replay.DefaultProdTaskLatency)),
		tailP90:         fs.Duration("tail-p90", 0, fmt.Sprintf("reclaim model: p90 of the latency of the -tail-tiers' tasks, lognormal with median -submit-latency (0: the default, %s; negative: no tail)", replay.DefaultTailP90)),
		tailMax:         fs.Duration("tail-max", 0, fmt.Sprintf("reclaim model: longest tail latency (0: the default, %s; negative: no maximum)", replay.DefaultTailMax)),
		tailTiers:       fs.String("tail-tiers", strings.Join(replay.DefaultTailTiers, ","), "reclaim model: tiers whose tasks have the latency tail (comma-separated; \"\" none)"),
		reserveAfter:    fs.Duration("reserve-after", 0, fmt.Sprintf("reclaim model: how long a non-prod task is charged its full request after its placement before its -reserve-cpu/-reserve-mem share, as Borg's reservation starts at the limit (Borg's: %s; 0, the default: the share from the start)", replay.BorgReserveAfter)),
		schedRate:       fs.Float64("sched-rate", 0, fmt.Sprintf("reclaim model: the scheduler's throughput, asks per second of trace time let through to it, highest priority first (0: the default, %g on 2011 traces, none on 2019 ones; negative: no limit)", replay.DefaultSchedRate)),
		schedBurst:      fs.Float64("sched-burst", 0, fmt.Sprintf("reclaim model: how many asks the scheduler takes at once after a quiet spell (0: the default, %g)", replay.DefaultSchedBurst)),
		classRate:       fs.Float64("class-rate", 0, fmt.Sprintf("reclaim model: the scheduler's throughput in equivalence classes (a job's tasks with the same request) per second of trace time, on top of -sched-rate (0: the default, %g on 2011 traces, none on 2019 ones; negative: no limit)", replay.DefaultClassRate)),
		classBurst:      fs.Float64("class-burst", 0, fmt.Sprintf("reclaim model: how many equivalence classes the scheduler takes at once after a quiet spell (0: the default, %g)", replay.DefaultClassBurst)),
		latency:         fs.Duration("submit-latency", 0, fmt.Sprintf("how long a submitted task takes to reach the scheduler (0: the model's default, reclaim %s, limits none; negative: none)", replay.DefaultSubmitLatency)),
	}
}

// options checks the flags and turns them into replay options. On a
// problem it says so on stderr and returns the exit code.
func (f *replayFlags) options(cmd string, stderr io.Writer) (replay.Options, int) {
	opts := replay.Options{Trace: *f.trace, Warmup: *f.warmup, Interval: *f.interval, CPUOvercommit: *f.overcommit, MemOvercommit: *f.memOvercommit,
		ProdReservation:    replay.Reservation{CPU: *f.prodCPU, Mem: *f.prodMem},
		NonProdReservation: replay.Reservation{CPU: *f.reserveCPU, Mem: *f.reserveMem}, SubmitLatency: *f.latency, TaskLatency: *f.taskLatency, ProdTaskLatency: *f.prodTaskLatency, TailP90: *f.tailP90, TailMax: *f.tailMax, SchedRate: *f.schedRate, SchedBurst: *f.schedBurst, ClassRate: *f.classRate, ClassBurst: *f.classBurst, ReserveAfter: *f.reserveAfter}
	var err error
	if opts.TailTiers, err = replay.ParseTiers(*f.tailTiers); err != nil {
		fmt.Fprintf(stderr, "paddock %s: -tail-tiers: %v\n", cmd, err)
		return opts, exitUsage
	}
	if opts.TailTiers == nil {
		opts.TailTiers = []string{}
	}
	if opts.Model, err = replay.ParseModel(*f.model); err != nil {
		fmt.Fprintf(stderr, "paddock %s: %v\n", cmd, err)
		return opts, exitUsage
	}
	for _, v := range []float64{*f.overcommit, *f.memOvercommit, *f.reserveCPU, *f.reserveMem, *f.prodCPU, *f.prodMem} {
		if v < 0 || v > 100 {
			fmt.Fprintf(stderr, "paddock %s: overcommit and reservation factors must be between 0 and 100, not %g\n", cmd, v)
			return opts, exitUsage
		}
	}
	if opts.Start, err = traceTime(*f.start); err != nil {
		fmt.Fprintf(stderr, "paddock %s: %v\n", cmd, err)
		return opts, exitUsage
	}
	if opts.End, err = traceTime(*f.end); err != nil {
		fmt.Fprintf(stderr, "paddock %s: %v\n", cmd, err)
		return opts, exitUsage
	}
	if st, err := os.Stat(*f.trace); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "paddock %s: trace directory %s not found (run from the repository root, or pass -trace DIR)\n", cmd, *f.trace)
		return opts, exitIOError
	}
	return opts, exitOK
}
