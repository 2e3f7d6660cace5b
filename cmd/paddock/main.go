// Command paddock is Paddock's single binary. Its subcommands (serve,
// replay, check-config, ...) each live in their own file and register
// themselves in the command table with register.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// Exit codes shared by the subcommands.
const (
	exitOK      = 0
	exitUsage   = 1
	exitIOError = 2
)

// command is one subcommand: its name, a one-line description for the usage
// text, and the function that runs it with the arguments after its name.
// run returns the process exit code.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands is the command table, filled by register from each
// subcommand's file.
var commands = map[string]command{}

// register adds a subcommand to the table; call it from an init function
// in the subcommand's file.
func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("paddock: subcommand registered twice: " + c.name)
	}
	commands[c.name] = c
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "paddock: unknown subcommand %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: paddock <subcommand> [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Subcommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-14s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "  %-14s %s\n", "help", "print this text")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'paddock <subcommand> -h' for a subcommand's options.")
}

// describe makes -h of a subcommand's flag set print its usage line, a
// description and its options.
func describe(fs *flag.FlagSet, usageLine, description string) {
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, "Usage: "+usageLine)
		fmt.Fprintln(w, description)
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Options:")
		fs.PrintDefaults()
	}
}

// parseFlags parses a subcommand's arguments, which are flags only. It
// returns the exit code and whether the subcommand should stop: -h
// printed the description (exit 0), a bad flag or a stray positional
// argument is a usage error, said clearly.
func parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, true
		}
		return exitUsage, true
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(fs.Output(), "paddock %s: unexpected argument %q: %s takes options only (-name value); see 'paddock %[1]s -h'\n",
			fs.Name(), fs.Arg(0), fs.Name())
		return exitUsage, true
	}
	return exitOK, false
}
