package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/cli"
	"github.com/paddock-sched/paddock/internal/replay"
)

func init() {
	paddock.Register(cli.Command{
		Name:    "replay",
		Summary: "replay a Google Borg trace through the scheduler (default: the bundled 2011 excerpt)",
		Run:     runReplay,
	})
}

// defaultTrace is the bundled excerpt, relative to the repository root.
const defaultTrace = "traces/google-2011-excerpt"

// traceTime parses a trace time: seconds ("600") or a duration ("10m").
func traceTime(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil && n >= 0 {
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad trace time %q: want seconds or a duration like 30m", s)
	}
	return d, nil
}

func runReplay(args []string, stdout, stderr io.Writer) int {
	fs := cli.FlagSet("paddock replay", stderr)
	rf := addReplayFlags(fs)
	cfgFile := fs.String("config", "", "queues.yaml to schedule with (default: one queue per priority tier)")
	html := fs.String("html", "out/replay.html", "write the HTML report here (\"\" for none)")
	logFile := fs.String("log", "", "write the decision log here")
	live := addLiveFlags(fs)
	cli.Describe(fs, "paddock replay [options]",
		"Replays a Google Borg cluster trace (2011 CSV or 2019 JSON export; default: the bundled 2011 excerpt)\n"+
			"through the scheduler on virtual time and prints what it did: tasks scheduled, the scheduling delay per\n"+
			"priority tier beside the trace's own, the fidelity to the trace, the cluster allocation over time and\n"+
			"a hash of the decisions. Writes an HTML report (-html).\n"+
			"With -serve ADDR it serves the cell's state while it runs (REST /ws/v1, Prometheus /ws/v1/metrics, a web\n"+
			"UI build with -ui), paced at -speed times real time, and keeps serving after the end until Ctrl-C.")
	if code, stop := cli.ParseFlags(fs, args); stop {
		return code
	}
	if code := live.check(stderr); code != exitOK {
		return code
	}
	opts, code := rf.options("replay", stderr)
	if code != exitOK {
		return code
	}
	defer live.attach(fs, &opts, stdout, stderr)()
	if *cfgFile != "" {
		b, err := os.ReadFile(*cfgFile)
		if err != nil {
			fmt.Fprintln(stderr, "paddock replay:", err)
			return exitIOError
		}
		opts.Config = string(b)
	}
	if *logFile != "" {
		f, err := os.Create(*logFile)
		if err != nil {
			fmt.Fprintln(stderr, "paddock replay:", err)
			return exitIOError
		}
		defer f.Close()
		opts.Log = f
	}
	if !*rf.quiet && isTerminal(stderr) {
		opts.Progress = progressBar(stderr)
	}
	sum, err := replay.Run(opts)
	if opts.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil && live.interrupted(err) {
		fmt.Fprintln(stderr, "paddock replay:", err)
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "paddock replay:", err)
		if strings.Contains(err.Error(), "register") {
			return exitUsage
		}
		return exitIOError
	}
	fmt.Fprint(stdout, sum)
	if *html != "" {
		if err := os.MkdirAll(filepath.Dir(*html), 0o755); err != nil {
			fmt.Fprintln(stderr, "paddock replay:", err)
			return exitIOError
		}
		if err := os.WriteFile(*html, replay.HTML(sum), 0o644); err != nil {
			fmt.Fprintln(stderr, "paddock replay:", err)
			return exitIOError
		}
		fmt.Fprintf(stdout, "report         %s\n", *html)
	}
	return live.wait(stdout, stderr)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func progressBar(w io.Writer) func(now, end time.Duration) {
	return func(now, end time.Duration) {
		if end <= 0 {
			fmt.Fprintf(w, "\r\033[Kreplaying: trace time %s", now.Round(time.Second))
			return
		}
		frac := min(1, float64(now)/float64(end))
		n := int(frac * 40)
		fmt.Fprintf(w, "\r\033[K[%s%s] %3.0f%% trace time %s", strings.Repeat("#", n), strings.Repeat(".", 40-n), 100*frac, now.Round(time.Second))
	}
}
