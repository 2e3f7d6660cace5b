package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/paddock-sched/paddock/internal/cli"
	"github.com/paddock-sched/paddock/internal/soak"
)

func init() {
	harness.Register(cli.Command{Name: "soak", Summary: "run serve for a long time under churn and REST readers; fail if memory or goroutines grow", Run: runSoak})
}

// exitSoakGrew is soak's exit code when a metric grew beyond its
// tolerance or a request failed.
const exitSoakGrew = 3

// runSoak runs a soak (package soak) and prints its samples and trends.
func runSoak(args []string, stdout, stderr io.Writer) int {
	fs := cli.FlagSet("paddock-harness soak", stderr)
	var o soak.Options
	fs.DurationVar(&o.Duration, "duration", time.Minute, "length of the soak")
	fs.DurationVar(&o.WarmUp, "warm-up", 0, "time excluded from the trend (default a quarter of -duration)")
	fs.DurationVar(&o.SampleEvery, "sample", time.Second, "sampling period")
	fs.IntVar(&o.Nodes, "nodes", 50, "the RM's nodes (4 cores each)")
	fs.IntVar(&o.Apps, "apps", 20, "the RM's applications")
	fs.IntVar(&o.Outstanding, "outstanding", 200, "asks the RM keeps pending")
	fs.IntVar(&o.Readers, "readers", 4, "REST readers (one more reads the event stream)")
	fs.IntVar(&o.EventRing, "event-ring", 0, "event history capacity (default the server's)")
	quiet := fs.Bool("q", false, "print only the report, not each sample")
	cli.Describe(fs, "paddock-harness soak [options]",
		"Runs paddock serve in this process on loopback ports with steady churn over gRPC (asks allocated\n"+
			"and released every 100 ms, an application removed and added and a node decommissioned and\n"+
			"created every second, a second RM registering and closing every 5 s, a configuration reload\n"+
			"every 10 s) and REST readers (the API every 200 ms each, and the event stream). Samples\n"+
			"goroutines, the live heap and RSS; after the warm-up compares the median of the last quarter\n"+
			"of the samples with the first quarter's. Exits 3 when one grew beyond its tolerance\n"+
			"(goroutines 50 + 10%, heap 16 MiB + 25%, RSS 64 MiB + 25%) or a request failed.")
	if code, stop := cli.ParseFlags(fs, args); stop {
		return code
	}
	if !*quiet {
		o.Progress = stdout
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := soak.Run(ctx, o)
	if rep != nil {
		fmt.Fprint(stdout, rep)
	}
	if err != nil {
		fmt.Fprintf(stderr, "soak: %v\n", err)
		return exitFailed
	}
	if rep.Failed() {
		fmt.Fprintln(stderr, "soak: FAILED: growth beyond tolerance or failed requests (see above)")
		return exitSoakGrew
	}
	return exitOK
}
