package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/paddock-sched/paddock/internal/replay"
)

// replayFlags are the trace, window and speed options that replay and
// whatif share.
type replayFlags struct {
	trace, start, end *string
	interval          *time.Duration
	overcommit        *float64
	quiet             *bool
}

func addReplayFlags(fs *flag.FlagSet) *replayFlags {
	return &replayFlags{
		trace:      fs.String("trace", defaultTrace, "trace directory (2011 CSV or 2019 JSON export)"),
		start:      fs.String("start", "", "skip trace events before this trace time (seconds or duration)"),
		end:        fs.String("end", "5598", "stop at this trace time (seconds or duration; 0 = end of the trace)"),
		interval:   fs.Duration("interval", time.Second, "trace time between scheduling cycles"),
		quiet:      fs.Bool("quiet", false, "no progress output"),
		overcommit: fs.Float64("cpu-overcommit", replay.DefaultCPUOvercommit, "multiply node CPU capacity (Borg overcommits CPU; 1 = none)"),
	}
}

// options checks the flags and turns them into replay options. On a
// problem it says so on stderr and returns the exit code.
func (f *replayFlags) options(cmd string, stderr io.Writer) (replay.Options, int) {
	opts := replay.Options{Trace: *f.trace, Interval: *f.interval, CPUOvercommit: *f.overcommit}
	var err error
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
