package main

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/paddock-sched/paddock/internal/cli/clitest"
)

// TestEveryCommandHelps: every command answers -h with a usage line, a
// description and its options and exits 0, and refuses a stray positional
// argument with a message that names it (check-config takes a file).
func TestEveryCommandHelps(t *testing.T) {
	clitest.EveryCommandHelps(t, &paddock, "check-config")
}

// harnesses are the project's test harnesses: commands of
// test/paddock-harness, not of paddock.
var harnesses = []string{"crash", "hostile", "loadtest", "soak"}

// TestHarnessesMoved: paddock -h does not offer the harnesses; asking
// paddock for one says where it is; and the test tool offers each of them
// (built and run with go run, as scripts/test.sh runs its soak).
func TestHarnessesMoved(t *testing.T) {
	var out bytes.Buffer
	run([]string{"-h"}, &out, &bytes.Buffer{})
	for _, h := range harnesses {
		if strings.Contains(out.String(), h) {
			t.Errorf("paddock -h mentions %s:\n%s", h, out.String())
		}
		var errb bytes.Buffer
		want := "run 'go run ./test/paddock-harness " + h + "'"
		if code := run([]string{h}, &bytes.Buffer{}, &errb); code != exitUsage || !strings.Contains(errb.String(), want) {
			t.Errorf("paddock %s: exit %d, stderr %q; want exit 1 and %q", h, code, errb.String(), want)
		}
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command builds the test tool: %v", err)
	}
	help, err := exec.Command(goTool, "run", "../../test/paddock-harness", "-h").CombinedOutput()
	if err != nil {
		t.Fatalf("go run ./test/paddock-harness -h: %v\n%s", err, help)
	}
	if got, want := clitest.CommandsInHelp(string(help)), append(slices.Clone(harnesses), "help"); !slices.Equal(got, want) {
		t.Errorf("paddock-harness -h lists %q, want %q:\n%s", got, want, help)
	}
}
