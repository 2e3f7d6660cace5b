package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/cli"
	"github.com/paddock-sched/paddock/internal/serve"
)

func init() {
	harness.Register(cli.Command{Name: "loadtest", Summary: "REST readers against paddock serve while an RM streams SI updates", Run: runLoadtest})
}

// runLoadtest runs the load twice on loopback, without and with readers,
// and compares the scheduling throughput. It exits 1 when a request failed.
func runLoadtest(args []string, stdout, stderr io.Writer) int {
	fs := cli.FlagSet("paddock-harness loadtest", stderr)
	readers := fs.Int("readers", 1000, "concurrent REST readers")
	interval := fs.Duration("interval", time.Second, "each reader's mean pause between requests (0: none)")
	duration := fs.Duration("duration", 30*time.Second, "length of each run")
	nodes := fs.Int("nodes", 500, "nodes (4 cores each)")
	outstanding := fs.Int("outstanding", 2000, "asks the RM keeps pending")
	paths := fs.String("paths", strings.Join(serve.DefaultLoadPaths, ","), "comma-separated REST paths the readers cycle through")
	cli.Describe(fs, "paddock-harness loadtest [options]",
		"Starts paddock serve in this process on loopback; a gRPC RM keeps asks flowing (each allocation is\n"+
			"released and asked for again) while REST readers poll metrics and events. Runs once without and\n"+
			"once with the readers and reports errors and the scheduling throughput of both. Exits 1 when a\n"+
			"request failed.")
	if code, stop := cli.ParseFlags(fs, args); stop {
		return code
	}
	if *readers < 0 || *duration <= 0 || *nodes <= 0 || *outstanding <= 0 {
		fs.Usage()
		return exitUsage
	}
	o := serve.LoadOptions{Interval: *interval, Duration: *duration, Nodes: *nodes, Outstanding: *outstanding, Paths: strings.Split(*paths, ",")}
	base, err := serve.RunLoad(o)
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "without readers: %s\n", base)
	o.Readers = *readers
	loaded, err := serve.RunLoad(o)
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: %v\n", err)
		return exitFailed
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
