package main

import (
	"bytes"
	"slices"
	"testing"

	"github.com/paddock-sched/paddock/internal/cli/clitest"
)

// TestEveryCommandHelps: every harness answers -h with a usage line, a
// description and its options and exits 0, and refuses a stray positional
// argument with a message that names it.
func TestEveryCommandHelps(t *testing.T) {
	clitest.EveryCommandHelps(t, &harness)
}

// TestHelpListsHarnesses: paddock-harness -h lists the four harnesses
// that left the paddock binary.
func TestHelpListsHarnesses(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"-h"}, &out, &bytes.Buffer{}); code != exitOK {
		t.Fatalf("-h: exit %d", code)
	}
	want := []string{"crash", "hostile", "loadtest", "soak", "help"}
	if got := clitest.CommandsInHelp(out.String()); !slices.Equal(got, want) {
		t.Errorf("paddock-harness -h lists %q, want %q:\n%s", got, want, out.String())
	}
}
