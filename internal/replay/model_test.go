package replay

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// modelFixture: machine 1 (half size) runs a production task (0.25 CPU)
// from trace start; machine 2 is full size. Job 2 submits three batch
// tasks of 0.4 CPU at 600 s.
func modelFixture(t *testing.T) string {
	dir := t.TempDir()
	writeTable(t, dir, "machine_events",
		"0,1,0,p,0.5,0.5",
		"0,2,0,p,1,1",
	)
	writeTable(t, dir, "job_events",
		"0,,1,0,alice,0,j1,l1",
		"600000000,,2,0,bob,0,j2,l2",
	)
	writeTable(t, dir, "task_events",
		"0,,1,0,,0,alice,0,9,0.25,0.25,0,0",
		"0,,1,0,1,1,alice,0,9,0.25,0.25,0,0",
		"600000000,,2,0,,0,bob,0,2,0.4,0.1,0,0",
		"600000000,,2,1,,0,bob,0,2,0.4,0.1,0,0",
		"600000000,,2,2,,0,bob,0,2,0.4,0.1,0,0",
	)
	return dir
}

func TestModelLimitsKeepsTheOldReplay(t *testing.T) {
	s, err := Run(Options{Trace: modelFixture(t), End: 700 * time.Second, Model: ModelLimits, CPUOvercommit: 1, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	// full requests: two 0.4 tasks fit machine 2, machine 1 has 0.25 left;
	// asks go to the scheduler at once and are placed in the 600 s cycle
	if s.Scheduled != 2 || s.PendingAtEnd != 1 || !slices.Equal(s.Delays[1], []time.Duration{0, 0}) {
		t.Fatalf("scheduled %d, pending %d, batch delays %v", s.Scheduled, s.PendingAtEnd, s.Delays[1])
	}
	if !strings.HasPrefix(s.Model, "limits") {
		t.Errorf("model %q", s.Model)
	}
}

func TestModelReclaim(t *testing.T) {
	s, err := Run(Options{Trace: modelFixture(t), End: 700 * time.Second, Model: ModelReclaim, Verify: true,
		NonProdReservation: Reservation{CPU: 0.7, Mem: 0.7}, SubmitLatency: time.Second, TaskLatency: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// batch tasks ask for 0.7 x 0.4 = 0.28 CPU: all three fit machine 2;
	// the first reaches the scheduler 1 s after submission (601 s cycle),
	// the others 0.4 s and 0.8 s later (602 s cycle)
	if s.Scheduled != 3 || s.PendingAtEnd != 0 || !slices.Equal(s.Delays[1], []time.Duration{time.Second, 2 * time.Second, 2 * time.Second}) {
		t.Fatalf("scheduled %d, pending %d, batch delays %v", s.Scheduled, s.PendingAtEnd, s.Delays[1])
	}
	// the production task is charged its limit: 0.25 of 1.5 machines' CPU
	// (64 cores per 1.0) plus the batch tasks' 3 x 0.28
	last := s.Series[len(s.Series)-1]
	if want := (0.25 + 3*0.28) / 1.5; last.CPU < want-1e-6 || last.CPU > want+1e-6 {
		t.Errorf("allocated CPU share %v, want %v", last.CPU, want)
	}
	// a prod reservation below 1 charges production tasks less
	s2, err := Run(Options{Trace: modelFixture(t), End: 700 * time.Second, ProdReservation: Reservation{CPU: 0.5, Mem: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s2.Series[0].CPU, 0.125/1.5; got < want-1e-6 || got > want+1e-6 {
		t.Errorf("production at half its CPU limit: share %v, want %v", got, want)
	}
}

func TestModelWithdrawHeldAsk(t *testing.T) {
	dir := t.TempDir()
	writeTable(t, dir, "machine_events", "0,1,0,p,1,1")
	writeTable(t, dir, "job_events", "600000000,,2,0,bob,0,j2,l2")
	// submitted and killed within the submission latency: the scheduler
	// never sees it
	writeTable(t, dir, "task_events",
		"600000000,,2,0,,0,bob,0,2,0.1,0.1,0,0",
		"600500000,,2,0,,5,bob,0,2,0.1,0.1,0,0",
	)
	s, err := Run(Options{Trace: dir, End: 700 * time.Second, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Submitted != 1 || s.Withdrawn != 1 || s.Scheduled != 0 || s.PendingAtEnd != 0 || s.RejectedAsks != 0 {
		t.Fatalf("submitted %d, withdrawn %d, scheduled %d, pending %d, rejected %d", s.Submitted, s.Withdrawn, s.Scheduled, s.PendingAtEnd, s.RejectedAsks)
	}
}

func TestParseModel(t *testing.T) {
	for in, want := range map[string]Model{"": ModelReclaim, "reclaim": ModelReclaim, " Limits ": ModelLimits} {
		if got, err := ParseModel(in); err != nil || got != want {
			t.Errorf("ParseModel(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseModel("magic"); err == nil {
		t.Error("ParseModel accepted an unknown model")
	}
}

// TestModelProdTaskLatency: a prod job's tasks submitted together reach
// the scheduler ProdTaskLatency apart, a batch job's TaskLatency apart
// (without the latency tail, TestTail).
func TestModelProdTaskLatency(t *testing.T) {
	dir := t.TempDir()
	writeTable(t, dir, "machine_events", "0,1,0,p,1,1")
	writeTable(t, dir, "job_events", "600000000,,2,0,bob,0,j2,l2", "600000000,,3,0,carol,0,j3,l3")
	writeTable(t, dir, "task_events",
		"600000000,,2,0,,0,bob,0,2,0.05,0.05,0,0",
		"600000000,,2,1,,0,bob,0,2,0.05,0.05,0,0",
		"600000000,,2,2,,0,bob,0,2,0.05,0.05,0,0",
		"600000000,,3,0,,0,carol,0,9,0.05,0.05,0,0",
		"600000000,,3,1,,0,carol,0,9,0.05,0.05,0,0",
		"600000000,,3,2,,0,carol,0,9,0.05,0.05,0,0",
	)
	s, err := Run(Options{Trace: dir, End: 700 * time.Second, ProdTaskLatency: 2 * time.Second, TailP90: -1, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	prod := slices.Index(Tiers(), "production")
	// 1 s submission latency, then 0 s, 2 s and 4 s later for prod; the
	// batch tasks 2 ms apart: the first in the 601 s cycle, the others in
	// the next
	if !slices.Equal(s.Delays[prod], []time.Duration{time.Second, 3 * time.Second, 5 * time.Second}) ||
		!slices.Equal(s.Delays[1], []time.Duration{time.Second, 2 * time.Second, 2 * time.Second}) {
		t.Fatalf("production delays %v, batch %v", s.Delays[prod], s.Delays[1])
	}
	if !strings.Contains(s.Model, "(prod 2s)") {
		t.Errorf("model %q does not say the prod spacing", s.Model)
	}
}
