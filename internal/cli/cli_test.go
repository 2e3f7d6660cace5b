package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// testProgram has two commands: echo prints its arguments, opts takes one
// flag and nothing else.
func testProgram() *Program {
	p := &Program{Name: "prog", Description: "prog does two things.", More: "More: the manual.",
		Elsewhere: map[string]string{"gone": "it moved to other-prog"}}
	p.Register(Command{Name: "opts", Summary: "take a flag", Run: func(args []string, stdout, stderr io.Writer) int {
		fs := FlagSet("prog opts", stderr)
		n := fs.Int("n", 1, "a number")
		Describe(fs, "prog opts [-n N]", "Takes a number.")
		if code, stop := ParseFlags(fs, args); stop {
			return code
		}
		stdout.Write([]byte(strings.Repeat("x", *n)))
		return ExitOK
	}})
	p.Register(Command{Name: "echo", Summary: "print the arguments", Run: func(args []string, stdout, stderr io.Writer) int {
		stdout.Write([]byte(strings.Join(args, " ")))
		return ExitOK
	}})
	return p
}

func TestHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := testProgram().Run([]string{"-h"}, &out, &errb); code != ExitOK || errb.Len() != 0 {
		t.Fatalf("-h: exit %d, stderr %q", code, errb.String())
	}
	want := `prog does two things.

Usage:
  prog <command> [options]

Commands:
  echo           print the arguments
  opts           take a flag
  help           print this help, or 'help COMMAND' a command's options

Run 'prog <command> -h' for a command's options.
More: the manual.
`
	if out.String() != want {
		t.Errorf("-h:\n%s\nwant:\n%s", out.String(), want)
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-help"}} {
		var o bytes.Buffer
		if code := testProgram().Run(args, &o, io.Discard); code != ExitOK || o.String() != want {
			t.Errorf("%q: exit %d, output %q", args, code, o.String())
		}
	}
	var o, e bytes.Buffer
	if code := testProgram().Run(nil, &o, &e); code != ExitUsage || o.Len() != 0 || e.String() != want {
		t.Errorf("no arguments: exit %d, stdout %q, stderr %q; want the help on stderr, exit 1", code, o.String(), e.String())
	}
}

func TestRun(t *testing.T) {
	cases := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"echo", "a", "b"}, ExitOK, "a b", ""},
		{[]string{"opts", "-n", "3"}, ExitOK, "xxx", ""},
		{[]string{"opts", "-h"}, ExitOK, "", "Usage: prog opts [-n N]\nTakes a number.\n\nOptions:\n  -n int\n    \ta number (default 1)\n"},
		{[]string{"help", "opts"}, ExitOK, "", "Usage: prog opts [-n N]\n"},
		{[]string{"opts", "-m"}, ExitUsage, "", "flag provided but not defined: -m"},
		{[]string{"opts", "extra"}, ExitUsage, "", `prog opts: unexpected argument "extra": it takes options only (-name value); see 'prog opts -h'`},
		{[]string{"frob"}, ExitUsage, "", "prog: unknown command \"frob\"\nThe commands are: echo, opts. Run 'prog -h' for help.\n"},
		{[]string{"help", "frob"}, ExitUsage, "", `prog: unknown command "frob"`},
		{[]string{"gone", "-x"}, ExitUsage, "", "prog: \"gone\" is not a prog command: it moved to other-prog\nThe commands are: echo, opts."},
	}
	for _, tc := range cases {
		var out, errb bytes.Buffer
		code := testProgram().Run(tc.args, &out, &errb)
		if code != tc.code || out.String() != tc.stdout || !strings.Contains(errb.String(), tc.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr with %q",
				tc.args, code, out.String(), errb.String(), tc.code, tc.stdout, tc.stderr)
		}
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	p := testProgram()
	defer func() {
		if recover() == nil {
			t.Error("a second command named echo was accepted")
		}
	}()
	p.Register(Command{Name: "echo", Summary: "again"})
}
