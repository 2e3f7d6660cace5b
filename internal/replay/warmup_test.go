package replay

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestWarmup: a window starting at 500 s. A production task running at
// trace start fills machine 1 until 300 s; a batch task submitted at
// 100 s runs briefly; one submitted at 600 s needs the room the first
// task leaves. Warmed up, the cell at 500 s is the trace's: the 600 s
// task is placed and only its delay counts, on both sides. Skipping the
// events before 500 s (the replay before Warmup), the first task never
// ends and the 600 s task never runs.
func TestWarmup(t *testing.T) {
	dir := t.TempDir()
	writeTable(t, dir, "machine_events", "0,1,0,p,1,1")
	writeTable(t, dir, "job_events", "0,,1,0,alice,0,j1,l1", "100000000,,2,0,bob,0,j2,l2", "600000000,,3,0,bob,0,j3,l3")
	writeTable(t, dir, "task_events",
		"0,,1,0,,0,alice,0,9,0.9,0.5,0,0",
		"0,,1,0,1,1,alice,0,9,0.9,0.5,0,0",
		"100000000,,2,0,,0,bob,0,2,0.05,0.05,0,0",
		"102000000,,2,0,1,1,bob,0,2,0.05,0.05,0,0",
		"150000000,,2,0,1,4,bob,0,2,0.05,0.05,0,0",
		"300000000,,1,0,1,4,alice,0,9,0.9,0.5,0,0",
		"600000000,,3,0,,0,bob,0,2,0.5,0.1,0,0",
		"603000000,,3,0,1,1,bob,0,2,0.5,0.1,0,0",
	)
	s, err := Run(Options{Trace: dir, Start: 500 * time.Second, End: 700 * time.Second, Warmup: true, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Scheduled != 2 || s.PendingAtEnd != 0 ||
		!slices.Equal(s.Delays[1], []time.Duration{time.Second}) || !slices.Equal(s.TraceDelays[1], []time.Duration{3 * time.Second}) {
		t.Fatalf("warm-up: scheduled %d, pending %d, batch delays %v, trace's %v", s.Scheduled, s.PendingAtEnd, s.Delays[1], s.TraceDelays[1])
	}
	if !strings.Contains(s.String(), "delays of the tasks submitted from 8m20s") {
		t.Errorf("the summary does not say the delays count from -start:\n%s", s)
	}

	s, err = Run(Options{Trace: dir, Start: 500 * time.Second, End: 700 * time.Second, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Scheduled != 0 || s.PendingAtEnd != 1 || len(s.Delays[1]) != 0 {
		t.Fatalf("without warm-up: scheduled %d, pending %d, batch delays %v", s.Scheduled, s.PendingAtEnd, s.Delays[1])
	}
}
