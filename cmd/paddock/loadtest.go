package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/serve"
)

func init() {
	register(command{name: "loadtest", summary: "REST readers against paddock serve while an RM streams SI updates", run: runLoadtest})
}

// runLoadtest runs the load twice on loopback, without and with readers,
// and compares the scheduling throughput. It exits 1 when a request failed.
func runLoadtest(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	readers := fs.Int("readers", 1000, "concurrent REST readers")
	interval := fs.Duration("interval", time.Second, "each reader's mean pause between requests (0: none)")
	duration := fs.Duration("duration", 30*time.Second, "length of each run")
	nodes := fs.Int("nodes", 500, "nodes (4 cores each)")
	outstanding := fs.Int("outstanding", 2000, "asks the RM keeps pending")
	paths := fs.String("paths", strings.Join(serve.DefaultLoadPaths, ","), "comma-separated REST paths the readers cycle through")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: paddock loadtest [options]")
		fmt.Fprintln(stderr, "Starts paddock serve on loopback; a gRPC RM keeps asks flowing (each allocation is released")
		fmt.Fprintln(stderr, "and asked for again) while REST readers poll metrics and events. Runs once without and once")
		fmt.Fprintln(stderr, "with the readers and reports errors and the scheduling throughput of both.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "paddock loadtest: unexpected argument %q: loadtest takes options only; see 'paddock loadtest -h'\n", fs.Arg(0))
		return exitUsage
	}
	if *readers < 0 || *duration <= 0 || *nodes <= 0 || *outstanding <= 0 {
		fs.Usage()
		return exitUsage
	}
	o := serve.LoadOptions{Interval: *interval, Duration: *duration, Nodes: *nodes, Outstanding: *outstanding, Paths: strings.Split(*paths, ",")}
	base, err := serve.RunLoad(o)
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: %v\n", err)
		return exitServeFailed
	}
	fmt.Fprintf(stdout, "without readers: %s\n", base)
	o.Readers = *readers
	loaded, err := serve.RunLoad(o)
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: %v\n", err)
		return exitServeFailed
	}
	fmt.Fprintf(stdout, "with %d readers: %s\n", *readers, loaded)
	ratio := loaded.AllocsPerSecond() / base.AllocsPerSecond()
	fmt.Fprintf(stdout, "throughput with readers: %.1f%% of without\n", 100*ratio)
	if loaded.Errors > 0 {
		fmt.Fprintf(stderr, "loadtest: %d requests failed; first: %s\n", loaded.Errors, loaded.FirstError)
		return exitUsage
	}
	return exitOK
}
