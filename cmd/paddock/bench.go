package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/paddock-sched/paddock/internal/bench"
)

func init() {
	register(command{
		name:    "bench",
		summary: "measure allocation throughput through the in-process SI (nodes x asks x splits)",
		run:     runBench,
	})
}

func runBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nodes := fs.Int("nodes", 0, "only scenarios with this many nodes (0: all of 1000, 5000, 10000)")
	asks := fs.Int("asks", 0, "only scenarios with this many asks (0: all of 10000, 100000)")
	quick := fs.Bool("quick", false, "a small smoke run (100 nodes, 2000 asks)")
	warmup := fs.Bool("warmup", true, "run the first scenario once unreported, so the process's heap has grown before measuring")
	scale := fs.Bool("scale", false, "only the scale scenario: 50,000 nodes, 1,000,000 asks, 100 apps (no warm-up; prints memory too)")
	memory := fs.Bool("memory", false, "also print, per scenario, the node registration time, heap per node and per ask and the peak RSS")
	describe(fs, "paddock bench [options]",
		"Measures allocation throughput end to end through the in-process Scheduler Interface: scenarios of\n"+
			"nodes and pending asks, each scheduled to completion, printing allocations per second, the latency\n"+
			"of the first allocation (from the first ask submitted to the RM callback), CPU time and heap\n"+
			"objects per allocation.")
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	var scs []bench.Scenario
	if *scale {
		scs = []bench.Scenario{bench.Scale}
		*warmup, *memory = false, true
	} else if *quick {
		scs = []bench.Scenario{{Nodes: 100, Asks: 2000, Apps: 2, Queues: 1}, {Nodes: 100, Asks: 2000, Apps: 100, Queues: 10, Mixed: true}}
	} else {
		for _, sc := range bench.Scenarios() {
			if (*nodes == 0 || sc.Nodes == *nodes) && (*asks == 0 || sc.Asks == *asks) {
				scs = append(scs, sc)
			}
		}
	}
	if len(scs) == 0 {
		fmt.Fprintln(stderr, "paddock bench: no scenario matches")
		return exitUsage
	}
	if *warmup {
		if _, err := bench.Run(scs[0]); err != nil {
			fmt.Fprintf(stderr, "paddock bench: warm-up: %v\n", err)
			return 2
		}
	}
	for _, sc := range scs {
		r, err := bench.Run(sc)
		if err != nil {
			fmt.Fprintf(stderr, "paddock bench: %s: %v\n", sc.Name(), err)
			return 2
		}
		fmt.Fprintln(stdout, r)
		if *memory {
			fmt.Fprintln(stdout, r.Memory())
		}
	}
	return exitOK
}
