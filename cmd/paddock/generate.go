package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/cli"
	"github.com/paddock-sched/paddock/internal/sim/borg/gen"
)

func init() {
	paddock.Register(cli.Command{
		Name:    "generate",
		Summary: "write a synthetic Borg trace in the 2019 format, calibrated to published figures",
		Run:     runGenerate,
	})
}

func runGenerate(args []string, stdout, stderr io.Writer) int {
	fs := cli.FlagSet("paddock generate", stderr)
	out := fs.String("out", "", "output directory (required)")
	seed := fs.Uint64("seed", 1, "random seed: the same options give byte-identical files")
	hours := fs.Float64("hours", 1, "length of the trace window in hours (at most 744)")
	machines := fs.Int("machines", gen.DefaultMachines, "machines per cell")
	cells := fs.String("cells", "", "comma-separated cell names, one directory each (default: one cell written in -out)")
	jobs := fs.Float64("jobs-per-hour", 0, "job arrivals per hour per cell (default 3300 per 12,000 machines)")
	fill := fs.Float64("initial-fill", gen.DefaultInitialFill, "share of the CPU requested by tasks running at trace start (0 for none)")
	shard := fs.Int64("shard-rows", gen.DefaultShardRows, "rows per shard file")
	cli.Describe(fs, "paddock generate -out DIR [options]",
		"Writes a synthetic Google Borg trace in the exact shape of the 2019 trace's BigQuery JSON export\n"+
			"(machine_events, collection_events, instance_events shards), calibrated to published figures of the\n"+
			"2019 cells. The same options give byte-identical files. Replay it with paddock replay -trace DIR -end 0.")
	if code, stop := cli.ParseFlags(fs, args); stop {
		return code
	}
	if *out == "" {
		fmt.Fprintln(stderr, "usage: paddock generate -out DIR [-seed N] [-hours H] [-machines M] [-cells a,b,...]")
		return exitUsage
	}
	if !(*hours > 0) || *hours > gen.MaxDuration.Hours() {
		fmt.Fprintf(stderr, "paddock generate: -hours %g out of range (0, %g]\n", *hours, gen.MaxDuration.Hours())
		return exitUsage
	}
	if *machines <= 0 || *jobs < 0 || *shard <= 0 || !(*fill >= 0) {
		fmt.Fprintln(stderr, "paddock generate: -machines and -shard-rows must be positive, -jobs-per-hour and -initial-fill not negative")
		return exitUsage
	}
	o := gen.Options{
		Seed:        *seed,
		Duration:    time.Duration(math.Round(*hours * float64(time.Hour))),
		Machines:    *machines,
		JobsPerHour: *jobs,
		InitialFill: *fill,
		ShardRows:   *shard,
	}
	if *fill == 0 {
		o.InitialFill = -1 // none
	}
	if *cells != "" {
		o.Cells = strings.Split(*cells, ",")
	}
	start := time.Now()
	reps, err := gen.Generate(*out, o)
	for _, r := range reps {
		fmt.Fprintln(stdout, r)
	}
	if err != nil {
		fmt.Fprintln(stderr, "paddock generate:", err)
		if errors.Is(err, gen.ErrBadOptions) {
			return exitUsage
		}
		return exitIOError
	}
	fmt.Fprintf(stdout, "generated in %s; replay with: paddock replay -trace %s -end 0\n",
		time.Since(start).Round(time.Millisecond), reps[0].Dir)
	return exitOK
}
