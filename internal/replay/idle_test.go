package replay

import (
	"reflect"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/sim/borg/gen"
)

// idleFixture is a small 2011 trace with long idle stretches while an ask
// waits: machine 1 (half size) from the start, machine 3 (full size) only
// at 3,000 s; job 1 runs at trace start until 1,500 s; job 2's task (0.9
// CPU) waits from 600 s for machine 3; job 3 runs 1,000-1,200 s.
func idleFixture(t *testing.T) string {
	dir := t.TempDir()
	writeTable(t, dir, "machine_events",
		"0,1,0,p,0.5,0.5",
		"2000000000,1,2,p,0.5,0.5",
		"3000000000,3,0,p,1,1",
	)
	writeTable(t, dir, "job_events",
		"0,,1,0,alice,0,j1,l1",
		"600000000,,2,0,bob,0,j2,l2",
		"1000000000,,3,0,carol,0,j3,l3",
	)
	writeTable(t, dir, "task_events",
		"0,,1,0,,0,alice,0,9,0.25,0.25,0,0",
		"0,,1,0,1,1,alice,0,9,0.25,0.25,0,0",
		"600000000,,2,0,,0,bob,0,2,0.9,0.1,0,0",
		"1000000000,,3,0,,0,carol,0,2,0.1,0.1,0,0",
		"1000500000,,3,0,1,1,carol,0,2,0.1,0.1,0,0",
		"1200000000,,3,0,1,4,carol,0,2,0.1,0.1,0,0",
		"1500000000,,1,0,1,4,alice,0,9,0.25,0.25,0,0",
		"3000200000,,2,0,3,1,bob,0,2,0.9,0.1,0,0",
		"3500000000,,2,0,3,4,bob,0,2,0.9,0.1,0,0",
	)
	return dir
}

// sameReplay runs opts with and without idle skipping and checks that both
// decided the same, measured the same and that skipping skipped.
func sameReplay(t *testing.T, opts Options) (skip, tick *Summary) {
	t.Helper()
	skip, err := Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.tickIdle = true
	tick, err = Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	if skip.LogHash != tick.LogHash {
		t.Errorf("decision log hash %s with idle skipping, %s without", skip.LogHash, tick.LogHash)
	}
	if !reflect.DeepEqual(skip.Delays, tick.Delays) || !reflect.DeepEqual(skip.TraceDelays, tick.TraceDelays) {
		t.Errorf("delays differ")
	}
	if !reflect.DeepEqual(skip.Series, tick.Series) {
		t.Errorf("time series differ: %d and %d samples", len(skip.Series), len(tick.Series))
	}
	if skip.Scheduled != tick.Scheduled || skip.PendingAtEnd != tick.PendingAtEnd || skip.End != tick.End {
		t.Errorf("scheduled %d/%d, pending at end %d/%d, end %s/%s", skip.Scheduled, tick.Scheduled,
			skip.PendingAtEnd, tick.PendingAtEnd, skip.End, tick.End)
	}
	if tick.Skipped != 0 || skip.Skipped == 0 || skip.Cycles+skip.Skipped != tick.Cycles {
		t.Errorf("cycles: %d run + %d skipped with skipping, %d run + %d skipped without",
			skip.Cycles, skip.Skipped, tick.Cycles, tick.Skipped)
	}
	return skip, tick
}

func TestIdleSkipSameDecisions(t *testing.T) {
	for _, end := range []time.Duration{4000 * time.Second, 0} {
		skip, tick := sameReplay(t, Options{Trace: idleFixture(t), End: end, CPUOvercommit: 1, Verify: true})
		// the big task waited for machine 3, placed at the 3,000 s cycle
		if got := skip.Delays[1]; len(got) != 2 || got[1] != 2400*time.Second {
			t.Errorf("end %s: batch delays %v", end, got)
		}
		// hours of idle waiting take a handful of cycles, not thousands
		if skip.Cycles > 20 || tick.Cycles < 2000 {
			t.Errorf("end %s: %d cycles with skipping, %d without", end, skip.Cycles, tick.Cycles)
		}
	}
}

func TestIdleSkipSameDecisionsGenerated(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.Generate(dir, gen.Options{Seed: 11, Machines: 60, Duration: 15 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	sameReplay(t, Options{Trace: dir, Interval: 200 * time.Millisecond})
}

func TestIdleSkipSameDecisionsExcerpt(t *testing.T) {
	sameReplay(t, Options{Trace: "../../traces/google-2011-excerpt", End: 800 * time.Second})
}
