package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/paddock-sched/paddock/internal/cli"
	"github.com/paddock-sched/paddock/internal/config"
)

// exitInvalidConfig is check-config's exit code for a configuration that
// does not validate.
const exitInvalidConfig = 3

func init() {
	paddock.Register(cli.Command{Name: "check-config", Summary: "validate a queues.yaml file", Run: runCheckConfig})
}

// runCheckConfig validates a queues.yaml file: it prints OK with a summary
// (exit 0) or every problem on its own line (exit 3). A usage error exits 1
// and an unreadable file 2.
func runCheckConfig(args []string, stdout, stderr io.Writer) int {
	fs := cli.FlagSet("paddock check-config", stderr)
	printYAML := fs.Bool("print", false, "on success, also print the normalised configuration as YAML")
	cli.Describe(fs, "paddock check-config [-print] FILE",
		"Validates a YuniKorn-compatible queues.yaml. Exit codes: 0 valid, 1 usage, 2 unreadable file, 3 invalid config.")
	if code, stop := cli.Parse(fs, args); stop {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	file := fs.Arg(0)
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "check-config: %v\n", err)
		return exitIOError
	}
	conf, err := config.Parse(data)
	if err != nil {
		var ve *config.ValidationError
		if !errors.As(err, &ve) {
			fmt.Fprintf(stdout, "%s: %v\n", file, err)
			return exitInvalidConfig
		}
		for _, p := range ve.Problems {
			fmt.Fprintln(stdout, p.String())
		}
		fmt.Fprintf(stderr, "%s: invalid configuration: %d problem(s)\n", file, len(ve.Problems))
		return exitInvalidConfig
	}
	queues := 0
	for i := range conf.Partitions {
		queues += countQueues(conf.Partitions[i].Queues)
	}
	fmt.Fprintf(stdout, "OK: %d partition(s), %d queue(s), checksum %s\n", len(conf.Partitions), queues, conf.Checksum)
	for _, w := range conf.Warnings {
		fmt.Fprintf(stdout, "warning: %s\n", w.String())
	}
	if *printYAML {
		out, err := conf.YAML()
		if err != nil {
			fmt.Fprintf(stderr, "check-config: %v\n", err)
			return exitIOError
		}
		stdout.Write(out)
	}
	return exitOK
}

func countQueues(qs []config.QueueConfig) int {
	n := len(qs)
	for i := range qs {
		n += countQueues(qs[i].Queues)
	}
	return n
}
