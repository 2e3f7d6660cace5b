package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestEveryCommandHelps: every subcommand answers -h with a usage line and
// a description and exits 0, and refuses a stray positional argument with
// a message that names it.
func TestEveryCommandHelps(t *testing.T) {
	for name := range commands {
		var out, errb bytes.Buffer
		if code := run([]string{name, "-h"}, &out, &errb); code != exitOK {
			t.Errorf("%s -h: exit %d", name, code)
		}
		help := out.String() + errb.String()
		lines := strings.Split(strings.TrimSpace(help), "\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[0], "Usage: paddock "+name) || strings.HasPrefix(strings.TrimSpace(lines[1]), "-") {
			t.Errorf("%s -h does not describe itself:\n%s", name, help)
		}
		if name == "check-config" {
			continue // takes a file argument
		}
		out.Reset()
		errb.Reset()
		if code := run([]string{name, "stray"}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), `unexpected argument "stray"`) {
			t.Errorf("%s stray: exit %d, stderr %q", name, code, errb.String())
		}
	}
}
