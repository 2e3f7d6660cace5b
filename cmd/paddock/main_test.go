package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/paddock-sched/paddock/internal/cli/clitest"
)

func TestRunUsage(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{args: nil, code: exitUsage, stderr: "check-config"},
		{args: []string{"help"}, code: exitOK, stdout: "\nUsage:\n  paddock <command> [options]\n\nCommands:\n"},
		{args: []string{"--help"}, code: exitOK, stdout: "  check-config   validate a queues.yaml file\n"},
		{args: []string{"help", "serve"}, code: exitOK, stderr: "Usage: paddock serve [options]\n"},
		{args: []string{"frobnicate"}, code: exitUsage, stderr: "paddock: unknown command \"frobnicate\"\nThe commands are: bench, check-config, generate, replay, serve, whatif."},
	}
	for _, tc := range cases {
		var out, errOut bytes.Buffer
		code := run(tc.args, &out, &errOut)
		if code != tc.code {
			t.Errorf("run(%q) = %d, want %d", tc.args, code, tc.code)
		}
		if tc.stdout != "" && !strings.Contains(out.String(), tc.stdout) {
			t.Errorf("run(%q) stdout %q lacks %q", tc.args, out.String(), tc.stdout)
		}
		if tc.stderr != "" && !strings.Contains(errOut.String(), tc.stderr) {
			t.Errorf("run(%q) stderr %q lacks %q", tc.args, errOut.String(), tc.stderr)
		}
	}
}

// TestEveryCommandDescribed: paddock -h starts with a one-line-per-sentence
// description, and lists exactly the commands an operator runs, each with
// its one-line summary.
func TestEveryCommandDescribed(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"-h"}, &out, &bytes.Buffer{}); code != exitOK {
		t.Fatalf("paddock -h: exit %d", code)
	}
	help := out.String()
	want := []string{"bench", "check-config", "generate", "replay", "serve", "whatif", "help"}
	if got := clitest.CommandsInHelp(help); !slices.Equal(got, want) {
		t.Errorf("paddock -h lists %q, want %q:\n%s", got, want, help)
	}
	if !strings.HasPrefix(help, "Paddock is a cluster scheduler") || !strings.Contains(help, "\nRun 'paddock <command> -h' for a command's options.\nDocumentation: ") {
		t.Errorf("paddock -h lacks its description or where to read more:\n%s", help)
	}
	for _, c := range paddock.Commands() {
		if !strings.Contains(help, "\n  "+c.Name+strings.Repeat(" ", 15-len(c.Name))+c.Summary+"\n") {
			t.Errorf("paddock -h lacks %s's summary %q:\n%s", c.Name, c.Summary, help)
		}
	}
}
