package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/paddock-sched/paddock/internal/cli"
	"github.com/paddock-sched/paddock/internal/hostile"
)

func init() {
	harness.Register(cli.Command{Name: "hostile", Summary: "send random and hostile SI traffic over gRPC and check the accounting after every batch", Run: runHostile})
}

// exitHostileProblems is hostile's exit code when a check failed.
const exitHostileProblems = 3

// runHostile runs the hostile-RM driver (package hostile).
func runHostile(args []string, stdout, stderr io.Writer) int {
	fs := cli.FlagSet("paddock-harness hostile", stderr)
	var o hostile.Options
	fs.IntVar(&o.Messages, "messages", 10_000, "SI messages to send")
	fs.IntVar(&o.Batch, "batch", 100, "messages between two checks")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the random choices")
	quiet := fs.Bool("q", false, "print only the result, no progress every 10 s")
	cli.Describe(fs, "paddock-harness hostile [options]",
		"Runs paddock serve in this process on loopback ports; two RMs send it random and hostile SI\n"+
			"traffic over gRPC (nil entries, unknown nodes, applications and keys, every node action and\n"+
			"termination type, negative, huge and unknown resources, gangs, foreign and recovered\n"+
			"allocations, valid and invalid configurations, re-registrations, raw streams of unknown RMs\n"+
			"and of bytes that are no SI message). After every batch it checks that no total is negative\n"+
			"or above the maximum, node sums match, Verify holds and the REST health check answers.\n"+
			"Exits 3 when a check failed.")
	if code, stop := cli.ParseFlags(fs, args); stop {
		return code
	}
	if !*quiet {
		o.Progress = stdout
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := hostile.Run(ctx, o)
	fmt.Fprintln(stdout, res)
	for _, p := range res.Problems {
		fmt.Fprintln(stdout, "problem:", p)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hostile: %v\n", err)
		return exitFailed
	}
	if res.ProblemCount > 0 {
		fmt.Fprintf(stderr, "hostile: FAILED: %d problems\n", res.ProblemCount)
		return exitHostileProblems
	}
	return exitOK
}
