package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunUsage(t *testing.T) {
	cases := []struct {
		args       []string
		code       int
		stdout     string
		stderr     string
		notInOther string
	}{
		{args: nil, code: exitUsage, stderr: "check-config"},
		{args: []string{"help"}, code: exitOK, stdout: "Subcommands:"},
		{args: []string{"--help"}, code: exitOK, stdout: "check-config   validate a queues.yaml file"},
		{args: []string{"frobnicate"}, code: exitUsage, stderr: `unknown subcommand "frobnicate"`},
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

func TestEveryCommandDescribed(t *testing.T) {
	for name, c := range commands {
		if c.name != name || c.summary == "" || c.run == nil {
			t.Errorf("command %q is incomplete: %+v", name, c)
		}
	}
}
