// Command paddock is Paddock's binary: the scheduler (serve) and the tools
// an operator runs beside it (check-config, replay, whatif, generate,
// bench). Each command lives in its own file and registers itself in the
// program's table. The project's own test harnesses (crash, hostile, soak,
// loadtest) are a separate program, test/paddock-harness.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/paddock-sched/paddock/internal/cli"
)

// Exit codes shared by the commands.
const (
	exitOK      = cli.ExitOK
	exitUsage   = cli.ExitUsage
	exitIOError = cli.ExitIOError
)

// harness is where the commands that moved to the test harness are now.
const harness = "it is one of the project's test harnesses: from a checkout, run 'go run ./test/paddock-harness %s'"

// paddock is the program; each command's file registers into it.
var paddock = cli.Program{
	Name:        "paddock",
	Description: "Paddock is a cluster scheduler core that speaks YuniKorn's Scheduler Interface: a drop-in replacement\nfor the Apache YuniKorn core, run as a server (serve) or replayed against a cluster trace (replay).",
	More:        "Documentation: README.md and docs/ in the source (module github.com/paddock-sched/paddock).",
	Elsewhere:   map[string]string{},
}

func init() {
	for _, name := range []string{"crash", "hostile", "loadtest", "soak"} {
		paddock.Elsewhere[name] = fmt.Sprintf(harness, name)
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command named by args[0].
func run(args []string, stdout, stderr io.Writer) int {
	return paddock.Run(args, stdout, stderr)
}
