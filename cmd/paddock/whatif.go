package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/paddock-sched/paddock/internal/cli"
	"github.com/paddock-sched/paddock/internal/whatif"
)

func init() {
	paddock.Register(cli.Command{
		Name:    "whatif",
		Summary: "replay one trace under two queue configurations and compare them",
		Run:     runWhatif,
	})
}

// builtinConfig names the replay's default configuration on the command
// line.
const builtinConfig = "default"

func runWhatif(args []string, stdout, stderr io.Writer) int {
	fs := cli.FlagSet("paddock whatif", stderr)
	a := fs.String("a", "", "queues.yaml of configuration A (\"default\": the replay's one queue per tier)")
	b := fs.String("b", "", "queues.yaml of configuration B (\"default\" as for -a)")
	html := fs.String("html", "", "write an HTML report with both replays side by side here")
	seeds := fs.Int("seeds", whatif.DefaultSeeds, "when the model draws random latencies (the reclaim model's tail): replay both sides under this many seeds and give each delay difference with a 95% interval (1: one replay per side)")
	rf := addReplayFlags(fs)
	cli.Describe(fs, "paddock whatif -a A.yaml -b B.yaml [options]",
		"Replays one trace under two queue configurations side by side and prints both with their differences:\n"+
			"tasks scheduled and pending, preemptions, CPU and memory allocation, the scheduler's own wait, the\n"+
			"modelled latency before it and their sum per tier (the sum per queue too), and both decision-log\n"+
			"hashes. Where the model draws random latencies, both sides are replayed under -seeds seeds and each\n"+
			"delay difference comes with a 95% interval. \"default\" names the replay's own configuration. Takes\n"+
			"the replay's trace, window and model options.")
	if code, stop := cli.ParseFlags(fs, args); stop {
		return code
	}
	if *a == "" || *b == "" {
		fmt.Fprintln(stderr, "usage: paddock whatif -a A.yaml -b B.yaml [replay flags: -trace, -start, -end, -interval, -model, -cpu-overcommit, ...]")
		return exitUsage
	}
	opts, code := rf.options("whatif", stderr)
	if code != exitOK {
		return code
	}
	var cfgs [2]whatif.Config
	for i, file := range []string{*a, *b} {
		cfgs[i].Name = file
		if file == builtinConfig {
			continue
		}
		text, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(stderr, "paddock whatif:", err)
			return exitIOError
		}
		cfgs[i].YAML = string(text)
	}
	if !*rf.quiet && isTerminal(stderr) {
		fmt.Fprint(stderr, "replaying the trace under A and B side by side ...")
	}
	if *seeds < 1 || *seeds > 100 {
		fmt.Fprintf(stderr, "paddock whatif: -seeds %d: want 1 to 100\n", *seeds)
		return exitUsage
	}
	res, err := whatif.RunSeeds(opts, cfgs[0], cfgs[1], *seeds)
	if !*rf.quiet && isTerminal(stderr) {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		fmt.Fprintln(stderr, "paddock whatif:", err)
		if strings.Contains(err.Error(), "register") {
			return exitUsage // a configuration is invalid
		}
		return exitIOError
	}
	fmt.Fprint(stdout, res)
	if *html != "" {
		if err := os.MkdirAll(filepath.Dir(*html), 0o755); err != nil {
			fmt.Fprintln(stderr, "paddock whatif:", err)
			return exitIOError
		}
		if err := os.WriteFile(*html, whatif.HTML(res), 0o644); err != nil {
			fmt.Fprintln(stderr, "paddock whatif:", err)
			return exitIOError
		}
		fmt.Fprintf(stdout, "report         %s\n", *html)
	}
	return exitOK
}
