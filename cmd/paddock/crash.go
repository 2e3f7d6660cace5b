package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/paddock-sched/paddock/internal/crash"
)

func init() {
	register(command{name: "crash", summary: "SIGKILL paddock serve holding a large cluster, restart it, resync, check nothing was lost", run: runCrash})
}

// exitCrashProblems is crash's exit code when something was lost or
// doubled.
const exitCrashProblems = 3

// firstDecisionTarget is the time from a restart to the first new
// scheduling decision issue #18 asks for; crash reports whether it was met.
const firstDecisionTarget = 5 * time.Second

// runCrash runs the kill-and-restart scenario (package crash) with this
// binary as the server.
func runCrash(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("crash", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o crash.Options
	fs.IntVar(&o.Nodes, "nodes", 10_000, "nodes (32 cores each)")
	fs.IntVar(&o.Allocations, "allocations", 200_000, "allocations (1 core each) before the kill")
	fs.IntVar(&o.Apps, "apps", 100, "applications holding them")
	fs.IntVar(&o.Pending, "pending", 2_000, "pending asks (64 cores: they fit no node)")
	fs.IntVar(&o.NewAsks, "new-asks", 100, "asks sent after the resync")
	prof := fs.String("cpuprofile", "", "write a CPU profile of the restarted server's first -profile-for to this file")
	fs.DurationVar(&o.ProfileFor, "profile-for", 20*time.Second, "length of the -cpuprofile")
	describe(fs, "paddock crash [options]",
		"Starts this binary's paddock serve as a child process on free loopback ports; a gRPC RM registers\n"+
			"the nodes, gets the allocations and leaves asks pending; then SIGKILL, the server starts again\n"+
			"on the same ports, the RM registers again and resyncs (nodes, applications, allocations on\n"+
			"their nodes, pending asks) and sends new asks. Reports the time from the restart to the first\n"+
			"new allocation (target < 5 s) and checks over REST that every allocation is there once, on its\n"+
			"node, with node sums and pending asks as the RM holds them. Exits 3 when something differs.")
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "crash: %v\n", err)
		return exitIOError
	}
	o.Command = []string{exe}
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fmt.Fprintf(stderr, "crash: %v\n", err)
			return exitIOError
		}
		defer f.Close()
		o.Profile = f
	}
	o.Progress = stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := crash.Run(ctx, o)
	fmt.Fprintln(stdout, res)
	met := "met"
	if res.FirstDecision >= firstDecisionTarget {
		met = "MISSED"
	}
	if err == nil {
		fmt.Fprintf(stdout, "first new decision %v after the restart: target < %v %s\n", res.FirstDecision.Round(time.Millisecond), firstDecisionTarget, met)
	}
	for _, p := range res.Problems {
		fmt.Fprintln(stdout, "problem:", p)
	}
	if err != nil {
		fmt.Fprintf(stderr, "crash: %v\n", err)
		return exitServeFailed
	}
	if len(res.Problems) > 0 {
		fmt.Fprintf(stderr, "crash: FAILED: %d problems\n", len(res.Problems))
		return exitCrashProblems
	}
	return exitOK
}
