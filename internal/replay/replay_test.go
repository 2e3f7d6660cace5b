package replay

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeTable writes one gzip CSV shard of a 2011-format table.
func writeTable(t *testing.T, dir, table string, rows ...string) {
	t.Helper()
	d := filepath.Join(dir, table)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(strings.Join(rows, "\n") + "\n"))
	z.Close()
	if err := os.WriteFile(filepath.Join(d, "part-00000-of-00001.csv.gz"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixture is a tiny 2011 trace:
//   - machines 1 and 2 (half-size) at t=0; machine 2 is removed at 800 s;
//   - job 1: task 0 runs at trace start on machine 1 and finishes at 700 s;
//   - job 2: task 0 is submitted at 600 s, runs 605-665 s in the trace;
//   - job 3: task 0 is submitted at 610 s, too big for any machine, and is
//     killed at 615 s while pending.
func fixture(t *testing.T) string {
	dir := t.TempDir()
	writeTable(t, dir, "machine_events",
		"0,1,0,p,0.5,0.5",
		"0,2,0,p,0.5,0.5",
		"800000000,2,1,,,",
	)
	writeTable(t, dir, "job_events",
		"0,,1,0,alice,0,j1,l1",
		"600000000,,2,0,bob,0,j2,l2",
		"610000000,,3,0,carol,0,j3,l3",
	)
	writeTable(t, dir, "task_events",
		"0,,1,0,,0,alice,0,9,0.25,0.25,0,0",
		"0,,1,0,1,1,alice,0,9,0.25,0.25,0,0",
		"600000000,,2,0,,0,bob,0,2,0.25,0.1,0,0",
		"605000000,,2,0,2,1,bob,0,2,0.25,0.1,0,0",
		"610000000,,3,0,,0,carol,0,0,0.9,0.1,0,0",
		"615000000,,3,0,,5,carol,0,0,0.9,0.1,0,0",
		"665000000,,2,0,2,4,bob,0,2,0.25,0.1,0,0",
		"700000000,,1,0,1,4,alice,0,9,0.25,0.25,0,0",
	)
	return dir
}

func TestReplayFixture(t *testing.T) {
	var log bytes.Buffer
	// the limits model: asks reach the scheduler at once, charged their
	// requests (TestModelReclaim covers the default model)
	s, err := Run(Options{Trace: fixture(t), End: 900 * time.Second, Log: &log, Verify: true, Model: ModelLimits, CPUOvercommit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Nodes != 2 || s.Recovered != 1 || s.Submitted != 2 || s.Scheduled != 1 || s.Withdrawn != 1 || s.PendingAtEnd != 0 || s.RunningAtEnd != 0 {
		t.Fatalf("summary: %+v", s)
	}
	if s.RejectedAsks != 0 || s.RejectedApps != 0 || s.Malformed != 0 {
		t.Fatalf("rejections: %+v", s.Rejections)
	}
	// job 2 was placed at the 600 s cycle: no delay; the trace took 5 s
	if got := s.Delays[1]; len(got) != 1 || got[0] != 0 {
		t.Fatalf("batch delays %v", got)
	}
	if got := s.TraceDelays[1]; len(got) != 1 || got[0] != 5*time.Second {
		t.Fatalf("trace batch delays %v", got)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("decision log:\n%s", log.String())
	}
	// placed at 600 s, released after its 60 s trace run, at 660 s; the
	// recovered task ends at 700 s as in the trace
	// machine 2 is empty, machine 1 runs the recovered task: fair puts the
	// new task on 2
	if lines[0] != "600000000 alloc 2-0-1 2" || !strings.HasPrefix(lines[1], "660000000 release 2-0-1 ") ||
		!strings.HasPrefix(lines[2], "700000000 release 1-0-1 1") {
		t.Fatalf("decision log:\n%s", log.String())
	}
}

func TestReplayIsDeterministic(t *testing.T) {
	dir := fixture(t)
	a, err := Run(Options{Trace: dir, End: 900 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(Options{Trace: dir, End: 900 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if a.LogHash != b.LogHash || a.LogHash == "" {
		t.Fatalf("hashes differ: %s %s", a.LogHash, b.LogHash)
	}
}

// TestReplayExcerptWindow replays the first minutes of the bundled real
// trace with the engine's invariants checked after every cycle.
func TestReplayExcerptWindow(t *testing.T) {
	s, err := Run(Options{Trace: "../../traces/google-2011-excerpt", End: 640 * time.Second, Interval: 20 * time.Second, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Nodes < 12000 || s.Recovered < 100000 || s.Submitted == 0 || s.Scheduled == 0 || s.Scheduled > s.Submitted {
		t.Fatalf("summary:\n%s", s)
	}
	for kind := range s.Rejections {
		if kind != "unknown node" { // recovered tasks on machines the trace never adds
			t.Fatalf("unexpected rejections: %v", s.Rejections)
		}
	}
	if !strings.Contains(string(HTML(s)), "<svg") {
		t.Fatal("report has no plots")
	}
	// the fidelity table is in the summary and the report, with a score
	// between 0 and 1 over the tiers the trace has delays for
	f := s.Fidelity()
	if len(f.Tiers) == 0 || f.Score <= 0 || f.Score > 1 {
		t.Fatalf("fidelity %+v", f)
	}
	if !strings.Contains(s.String(), "fidelity score") || !strings.Contains(string(HTML(s)), "Fidelity score") {
		t.Fatal("no fidelity score in the summary or the report")
	}
}
