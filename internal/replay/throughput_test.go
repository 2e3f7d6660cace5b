package replay

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// throughputFixture: one full-size machine; two free jobs submit four and
// two small tasks at 600 s, a production job one task at 601 s.
func throughputFixture(t *testing.T) string {
	dir := t.TempDir()
	writeTable(t, dir, "machine_events", "0,1,0,p,1,1")
	writeTable(t, dir, "job_events",
		"600000000,,2,0,bob,0,j2,l2",
		"600000000,,3,0,carol,0,j3,l3",
		"601000000,,4,0,dave,0,j4,l4",
	)
	writeTable(t, dir, "task_events",
		"600000000,,2,0,,0,bob,0,0,0.01,0.01,0,0",
		"600000000,,2,1,,0,bob,0,0,0.01,0.01,0,0",
		"600000000,,2,2,,0,bob,0,0,0.01,0.01,0,0",
		"600000000,,2,3,,0,bob,0,0,0.01,0.01,0,0",
		"600000000,,3,0,,0,carol,0,0,0.01,0.01,0,0",
		"600000000,,3,1,,0,carol,0,0,0.01,0.01,0,0",
		"601000000,,4,0,,0,dave,0,9,0.01,0.01,0,0",
	)
	return dir
}

// At most SchedRate asks a second reach the scheduler (SchedBurst at
// once), the highest priority first and one per job in turn within a
// priority; the wait for the throughput is modelled latency.
func TestSchedulerThroughput(t *testing.T) {
	opts := Options{Trace: throughputFixture(t), End: 700 * time.Second, Verify: true, SubmitLatency: time.Second,
		TaskLatency: -1, TailTiers: []string{}, SchedRate: 2, SchedBurst: 2}
	s, err := Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	// 601 s: two asks, one of each free job; 602 s: production, then the
	// second of job 2; 603 s: job 3's second and job 2's third; 604 s: the
	// last
	sec := time.Second
	free := slices.Sorted(slices.Values(s.Delays[0]))
	if !slices.Equal(free, []time.Duration{sec, sec, 2 * sec, 3 * sec, 3 * sec, 4 * sec}) ||
		!slices.Equal(s.Delays[3], []time.Duration{sec}) {
		t.Fatalf("free delays %v, production %v", free, s.Delays[3])
	}
	if !slices.Equal(s.ModelDelays[0], s.Delays[0]) || slices.Max(s.SchedDelays[0]) != 0 {
		t.Errorf("modelled %v, scheduler %v: the wait is the model's", s.ModelDelays[0], s.SchedDelays[0])
	}

	opts.SchedRate = -1 // no limit: every ask at 601 s
	s, err = Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Max(s.Delays[0]) != sec {
		t.Errorf("without a limit: free delays %v", s.Delays[0])
	}
}

func TestPickRoundRobin(t *testing.T) {
	mk := func(job int64, prio int32) readyAsk { return readyAsk{t: &task{job: job, prio: prio}} }
	asks := []readyAsk{mk(1, 0), mk(1, 0), mk(1, 0), mk(2, 0), mk(3, 5), mk(2, 0)}
	got := pickRoundRobin(asks, 3)
	// priority 5 first, then job 1's first and job 2's first
	want := []bool{true, false, false, true, true, false}
	if !slices.Equal(got, want) {
		t.Errorf("picked %v, want %v", got, want)
	}
	if got := pickRoundRobin(asks, 10); slices.Contains(got, false) {
		t.Errorf("all asks fit: %v", got)
	}
	if got := pickRoundRobin(asks, -1); slices.Contains(got, true) {
		t.Errorf("no token, yet picked: %v", got)
	}
}

// A task the trace evicts and submits again while it still runs with us
// ends with us too, and its new submission is a new ask, placed again.
func TestEvictionResubmits(t *testing.T) {
	dir := t.TempDir()
	writeTable(t, dir, "machine_events", "0,1,0,p,1,1")
	writeTable(t, dir, "job_events", "600000000,,2,0,bob,0,j2,l2")
	writeTable(t, dir, "task_events",
		"600000000,,2,0,,0,bob,0,0,0.01,0.01,0,0",
		"600500000,,2,0,1,1,bob,0,0,0.01,0.01,0,0",
		"700000000,,2,0,1,2,bob,0,0,0.01,0.01,0,0",
		"700000000,,2,0,,0,bob,0,0,0.01,0.01,0,0",
		"702000000,,2,0,1,1,bob,0,0,0.01,0.01,0,0",
		"800000000,,2,0,1,4,bob,0,0,0.01,0.01,0,0",
	)
	s, err := Run(Options{Trace: dir, End: 900 * time.Second, Verify: true, SubmitLatency: time.Second, TailTiers: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Scheduled != 2 || !slices.Equal(s.Delays[0], []time.Duration{time.Second, time.Second}) ||
		len(s.TraceDelays[0]) != 2 || s.RunningAtEnd != 0 {
		t.Fatalf("scheduled %d, delays %v, trace delays %v, running at end %d", s.Scheduled, s.Delays[0], s.TraceDelays[0], s.RunningAtEnd)
	}
}

// The default throughput is the 2011 cell's: 2019 traces have none unless
// SchedRate sets one.
func TestThroughputDefaultPerFormat(t *testing.T) {
	s, err := Run(Options{Trace: throughputFixture(t), End: 700 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Model, "at most 100 asks/s (bursts of 2200)") {
		t.Errorf("2011 model: %s", s.Model)
	}
	for rate, want := range map[float64]string{0: "no throughput limit", 50: "at most 50 asks/s"} {
		s, err = Run(Options{Trace: "../sim/borg/testdata/t2019", SchedRate: rate})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(s.Model, want) {
			t.Errorf("2019 model, SchedRate %g: %s", rate, s.Model)
		}
	}
}
