package replay

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// reserveFixture: one full-size machine; a batch task of half its CPU at
// 600 s, running to the end, and a second batch task of 0.6 of its CPU at
// 700 s.
func reserveFixture(t *testing.T) string {
	dir := t.TempDir()
	writeTable(t, dir, "machine_events", "0,1,0,p,1,1")
	writeTable(t, dir, "job_events", "600000000,,2,0,bob,0,j2,l2", "700000000,,3,0,bob,0,j3,l3")
	writeTable(t, dir, "task_events",
		"600000000,,2,0,,0,bob,0,2,0.5,0.01,0,0",
		"700000000,,3,0,,0,bob,0,2,0.6,0.01,0,0",
	)
	return dir
}

// With ReserveAfter, a non-prod task is charged its full request for
// that long after its placement, then its reservation (Borg's reservation
// starts at the limit): the second task fits beside the first only once
// the first is charged 0.6 of its request. By default, charged its
// reservation from the start, it fits at once.
func TestReservationStartsAtLimit(t *testing.T) {
	run := func(after time.Duration) (*Summary, string) {
		var log bytes.Buffer
		s, err := Run(Options{Trace: reserveFixture(t), End: 1200 * time.Second, Verify: true, Log: &log,
			SubmitLatency: time.Second, TaskLatency: -1, TailTiers: []string{}, SchedRate: -1, ReserveAfter: after})
		if err != nil {
			t.Fatal(err)
		}
		return s, log.String()
	}
	s, log := run(BorgReserveAfter)
	if s.Scheduled != 2 || len(s.Delays[1]) != 2 {
		t.Fatalf("placed %d, delays %v", s.Scheduled, s.Delays[1])
	}
	// the first placed at 601 s is charged 0.3 from 901 s; the second,
	// asking for its full 0.6, fits from then
	if d := s.Delays[1][1]; d != 201*time.Second {
		t.Errorf("second task's delay %v, want 3m21s (until the first's reservation starts)", d)
	}
	if s.SchedDelays[1][1] != 200*time.Second {
		t.Errorf("scheduler's own wait %v: waiting for room is the scheduler's", s.SchedDelays[1][1])
	}
	if !strings.Contains(log, "901000000 reserve 2-0-1 1\n") {
		t.Errorf("decision log lacks the first task's reservation at 901 s:\n%s", log)
	}

	s, log = run(0) // the default
	if d := s.Delays[1][1]; d != time.Second || strings.Contains(log, "reserve") {
		t.Errorf("reservation from the start: second task's delay %v, log:\n%s", d, log)
	}
}
