// Package cli is the command-line frame of Paddock's programs: the paddock
// binary and the project's test harness (test/paddock-harness). A Program
// is a table of commands; it prints the program's help, dispatches to a
// command and refuses an unknown one by naming the commands it has. Each
// command parses its own flags with FlagSet, Describe and ParseFlags, so
// that every -h reads the same way.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Exit codes shared by the commands of both programs.
const (
	ExitOK      = 0
	ExitUsage   = 1
	ExitIOError = 2
)

// Command is one command: its name, a one-line summary for the program's
// help, and the function that runs it with the arguments after its name
// and returns the process's exit code.
type Command struct {
	Name    string
	Summary string
	Run     func(args []string, stdout, stderr io.Writer) int
}

// Program is a command-line program made of commands.
type Program struct {
	// Name is the program's name as its user types it ("paddock").
	Name string
	// Description is the one line the help starts with.
	Description string
	// More is the help's last line: where to read more.
	More string
	// Elsewhere names commands this program does not have but a user may
	// look for in it (they moved), each with where to find it instead.
	Elsewhere map[string]string

	commands map[string]Command
}

// Register adds a command; a second command of the same name is a
// programming error and panics (Register runs from init functions).
func (p *Program) Register(c Command) {
	if p.commands == nil {
		p.commands = map[string]Command{}
	}
	if _, dup := p.commands[c.Name]; dup {
		panic(p.Name + ": command registered twice: " + c.Name)
	}
	p.commands[c.Name] = c
}

// Commands returns the registered commands sorted by name.
func (p *Program) Commands() []Command {
	cs := make([]Command, 0, len(p.commands))
	for _, c := range p.commands {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	return cs
}

// names is the list of command names for an error message.
func (p *Program) names() string {
	var ns []string
	for _, c := range p.Commands() {
		ns = append(ns, c.Name)
	}
	return strings.Join(ns, ", ")
}

// Run dispatches args (the process's arguments without the program name)
// to a command and returns the exit code. No arguments print the help on
// stderr (exit 1); -h, --help and help print it on stdout; "help CMD" is
// "CMD -h".
func (p *Program) Run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		p.Help(stderr)
		return ExitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		p.Help(stdout)
		return ExitOK
	case "help":
		if len(args) == 1 {
			p.Help(stdout)
			return ExitOK
		}
		name, args = args[1], []string{args[1], "-h"}
	}
	c, ok := p.commands[name]
	if !ok {
		if where, moved := p.Elsewhere[name]; moved {
			fmt.Fprintf(stderr, "%[1]s: %[2]q is not a %[1]s command: %[3]s\n", p.Name, name, where)
		} else {
			fmt.Fprintf(stderr, "%s: unknown command %q\n", p.Name, name)
		}
		fmt.Fprintf(stderr, "The commands are: %s. Run '%s -h' for help.\n", p.names(), p.Name)
		return ExitUsage
	}
	return c.Run(args[1:], stdout, stderr)
}

// Help writes the program's help: its description, usage, the commands
// with their summaries and where to read more.
func (p *Program) Help(w io.Writer) {
	fmt.Fprintln(w, p.Description)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintf(w, "  %s <command> [options]\n", p.Name)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range p.Commands() {
		fmt.Fprintf(w, "  %-14s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintf(w, "  %-14s %s\n", "help", "print this help, or 'help COMMAND' a command's options")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Run '%s <command> -h' for a command's options.\n", p.Name)
	if p.More != "" {
		fmt.Fprintln(w, p.More)
	}
}

// FlagSet returns the flag set of the command line cmd ("paddock serve"):
// errors and -h go to stderr, and a bad flag is returned to ParseFlags.
func FlagSet(cmd string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// Describe makes -h of a command's flag set print its usage line, a
// description and its options.
func Describe(fs *flag.FlagSet, usageLine, description string) {
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, "Usage: "+usageLine)
		fmt.Fprintln(w, description)
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Options:")
		fs.PrintDefaults()
	}
}

// ParseFlags parses the arguments of a command that takes flags only. It
// returns the exit code and whether the command should stop: -h printed
// the description (exit 0); a bad flag or a stray positional argument is a
// usage error, said clearly.
func ParseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	if code, stop := Parse(fs, args); stop {
		return code, true
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q: it takes options only (-name value); see '%[1]s -h'\n",
			fs.Name(), fs.Arg(0))
		return ExitUsage, true
	}
	return ExitOK, false
}

// Parse parses the arguments of a command that also takes positional
// arguments (the caller checks them), with ParseFlags's exit codes.
func Parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK, true
		}
		return ExitUsage, true
	}
	return ExitOK, false
}
