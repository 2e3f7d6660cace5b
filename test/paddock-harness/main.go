// Command paddock-harness runs the project's own robustness and load
// harnesses against paddock serve: a SIGKILL-restart-resync check at scale
// (crash), hostile SI traffic (hostile), a leak-hunting soak (soak) and
// REST readers beside a streaming RM (loadtest). They test Paddock; an
// operator does not run them, so they live here, apart from the paddock
// binary, as the integration and robustness harnesses of kube-scheduler
// and etcd live under their test directories. From a checkout:
//
//	go run ./test/paddock-harness -h
//	go run ./test/paddock-harness soak -duration 60s
//
// hostile, soak and loadtest run serve inside this process; crash runs the
// paddock binary as a child process (-paddock; by default it builds
// ./cmd/paddock, with its profile-guided optimisation, into a temporary
// directory). For throughput figures comparable with the paddock binary's,
// build this tool with the same profile:
// go run -pgo=cmd/paddock/default.pgo ./test/paddock-harness loadtest.
package main

import (
	"io"
	"os"

	"github.com/paddock-sched/paddock/internal/cli"
)

// Exit codes shared by the harnesses: a harness that ran and found a
// problem exits 3 (loadtest: 1); one that could not run (a listener, the
// server or the build failed) exits 4.
const (
	exitOK      = cli.ExitOK
	exitUsage   = cli.ExitUsage
	exitIOError = cli.ExitIOError
	exitFailed  = 4
)

// harness is the program; each harness's file registers into it.
var harness = cli.Program{
	Name:        "paddock-harness",
	Description: "paddock-harness runs Paddock's own robustness and load harnesses against paddock serve (the\nproject's tests, not part of the paddock binary; scripts/test.sh runs a 60 s soak).",
	More:        "From a checkout: go run ./test/paddock-harness <command>. Documentation: docs/reliability.md and docs/performance.md.",
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the harness named by args[0].
func run(args []string, stdout, stderr io.Writer) int {
	return harness.Run(args, stdout, stderr)
}
