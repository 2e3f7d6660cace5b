// Package clitest holds the checks both of Paddock's programs (cmd/paddock
// and test/paddock-harness) run on their command tables, so that every
// command of either answers -h and bad arguments the same way.
package clitest

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/paddock-sched/paddock/internal/cli"
)

// EveryCommandHelps checks that every command of p answers -h with exit 0,
// a usage line naming it, a description and its options, one flag or more;
// and that each one not in positional (the commands that take arguments)
// refuses a stray argument with exit 1 and a message that names it.
func EveryCommandHelps(t *testing.T, p *cli.Program, positional ...string) {
	t.Helper()
	cs := p.Commands()
	if len(cs) == 0 {
		t.Fatalf("%s has no commands", p.Name)
	}
	for _, c := range cs {
		if c.Summary == "" || strings.Contains(c.Summary, "\n") || c.Run == nil {
			t.Errorf("%s %s: want a one-line summary and a Run, have %+v", p.Name, c.Name, c)
		}
		var out, errb bytes.Buffer
		if code := p.Run([]string{c.Name, "-h"}, &out, &errb); code != cli.ExitOK {
			t.Errorf("%s %s -h: exit %d", p.Name, c.Name, code)
		}
		help := out.String() + errb.String()
		lines := strings.Split(strings.TrimSpace(help), "\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[0], "Usage: "+p.Name+" "+c.Name) || strings.HasPrefix(strings.TrimSpace(lines[1]), "-") ||
			!strings.Contains(help, "\nOptions:\n  -") {
			t.Errorf("%s %s -h does not describe itself and list its options:\n%s", p.Name, c.Name, help)
		}
		if slices.Contains(positional, c.Name) {
			continue
		}
		out.Reset()
		errb.Reset()
		want := p.Name + " " + c.Name + `: unexpected argument "stray"`
		if code := p.Run([]string{c.Name, "stray"}, &out, &errb); code != cli.ExitUsage || !strings.Contains(errb.String(), want) {
			t.Errorf("%s %s stray: exit %d, stderr %q; want exit 1 and %q", p.Name, c.Name, code, errb.String(), want)
		}
	}
}

// CommandsInHelp returns the command names a program's help lists, in
// order: the first word of each line of its Commands section.
func CommandsInHelp(help string) []string {
	_, section, found := strings.Cut(help, "\nCommands:\n")
	if !found {
		return nil
	}
	section, _, _ = strings.Cut(section, "\n\n")
	var names []string
	for _, line := range strings.Split(section, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names
}
