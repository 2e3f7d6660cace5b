package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/sim/borg/gen"
)

// TestReplayGenerated replays a small synthetic 2019-format trace with the
// engine's invariants checked after every cycle.
func TestReplayGenerated(t *testing.T) {
	dir := t.TempDir()
	reps, err := gen.Generate(dir, gen.Options{Seed: 5, Machines: 150, Duration: 20 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	g := reps[0]
	s, err := Run(Options{Trace: dir, Verify: true, Interval: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if s.Malformed != 0 || s.RejectedAsks != 0 || s.RejectedApps != 0 || s.RejectedNodes != 0 {
		t.Fatalf("rejections or malformed rows:\n%s", s)
	}
	// every machine joins (some again after a removal); every task running
	// at trace start fits where the trace put it
	if s.Nodes < g.Machines || int64(s.Recovered) != g.InitialTasks {
		t.Fatalf("nodes %d (trace %d), recovered %d (trace %d)", s.Nodes, g.Machines, s.Recovered, g.InitialTasks)
	}
	if s.Submitted == 0 || s.Scheduled == 0 || s.Scheduled > s.Submitted {
		t.Fatalf("submitted %d, scheduled %d", s.Submitted, s.Scheduled)
	}
	// collections name their users; instances do not, and the replay
	// takes the user from the collection
	if s.Users < 5 {
		t.Fatalf("%d users, want the collections' users", s.Users)
	}
	if s.Format != "2019" || !strings.Contains(string(HTML(s)), "clusterdata_2019") {
		t.Errorf("format %q; the report should name the 2019 format", s.Format)
	}
	var traceDelays int
	for _, d := range s.TraceDelays {
		traceDelays += len(d)
	}
	if traceDelays == 0 || s.End < g.End {
		t.Fatalf("trace delays %d, replayed until %s (trace window ends %s)", traceDelays, s.End, g.End)
	}
}
