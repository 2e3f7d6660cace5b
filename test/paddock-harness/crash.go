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
	"github.com/paddock-sched/paddock/internal/crash"
)

func init() {
	harness.Register(cli.Command{Name: "crash", Summary: "SIGKILL paddock serve holding a large cluster, restart it, resync, check nothing was lost", Run: runCrash})
}

// exitCrashProblems is crash's exit code when something was lost or
// doubled.
const exitCrashProblems = 3

// firstDecisionTarget is the time from a restart to the first new
// scheduling decision issue #18 asks for; crash reports whether it was met.
const firstDecisionTarget = 5 * time.Second

// runCrash runs the kill-and-restart scenario (package crash) with the
// paddock binary as the server.
func runCrash(args []string, stdout, stderr io.Writer) int {
	fs := cli.FlagSet("paddock-harness crash", stderr)
	var o crash.Options
	fs.IntVar(&o.Nodes, "nodes", 10_000, "nodes (32 cores each)")
	fs.IntVar(&o.Allocations, "allocations", 200_000, "allocations (1 core each) before the kill")
	fs.IntVar(&o.Apps, "apps", 100, "applications holding them")
	fs.IntVar(&o.Pending, "pending", 2_000, "pending asks (64 cores: they fit no node)")
	fs.IntVar(&o.NewAsks, "new-asks", 100, "asks sent after the resync")
	prof := fs.String("cpuprofile", "", "write a CPU profile of the restarted server's first -profile-for to this file")
	fs.DurationVar(&o.ProfileFor, "profile-for", 20*time.Second, "length of the -cpuprofile")
	bin := fs.String("paddock", "", "the paddock binary to kill and restart (default: ./cmd/paddock of this checkout, built into a temporary directory)")
	cli.Describe(fs, "paddock-harness crash [options]",
		"Starts paddock serve (the -paddock binary) as a child process on free loopback ports; a gRPC RM\n"+
			"registers the nodes, gets the allocations and leaves asks pending; then SIGKILL, the server starts\n"+
			"again on the same ports, the RM registers again and resyncs (nodes, applications, allocations on\n"+
			"their nodes, pending asks) and sends new asks. Reports the time from the restart to the first\n"+
			"new allocation (target < 5 s) and checks over REST that every allocation is there once, on its\n"+
			"node, with node sums and pending asks as the RM holds them. Exits 3 when something differs.")
	if code, stop := cli.ParseFlags(fs, args); stop {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	exe := *bin
	if exe == "" {
		dir, err := os.MkdirTemp("", "paddock-harness-")
		if err != nil {
			fmt.Fprintf(stderr, "crash: %v\n", err)
			return exitIOError
		}
		defer os.RemoveAll(dir)
		fmt.Fprintln(stdout, "building paddock:", paddockPackage)
		if exe, err = buildPaddock(ctx, dir, false); err != nil {
			fmt.Fprintf(stderr, "crash: %v\n", err)
			return exitFailed
		}
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
		return exitFailed
	}
	if len(res.Problems) > 0 {
		fmt.Fprintf(stderr, "crash: FAILED: %d problems\n", len(res.Problems))
		return exitCrashProblems
	}
	return exitOK
}
