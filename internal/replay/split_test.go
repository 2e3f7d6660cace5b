package replay

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Each placed task's delay is split in two: the modelled latency before
// the scheduler could see it, and the scheduler's own wait from the ask
// reaching Paddock to the cycle that placed it; they add up to the delay
// the fidelity compares.
func TestDelaySplit(t *testing.T) {
	s, err := Run(Options{Trace: modelFixture(t), End: 700 * time.Second, Model: ModelReclaim, Verify: true,
		NonProdReservation: Reservation{CPU: 0.7, Mem: 0.7}, SubmitLatency: time.Second, TaskLatency: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// the three batch asks reach Paddock 1 s, 1.4 s and 1.8 s after their
	// submission at 600 s; the scheduler places them in the cycles at 601 s
	// and 602 s
	ms := time.Millisecond
	model, sched := slices.Sorted(slices.Values(s.ModelDelays[1])), slices.Sorted(slices.Values(s.SchedDelays[1]))
	if !slices.Equal(model, []time.Duration{1000 * ms, 1400 * ms, 1800 * ms}) || !slices.Equal(sched, []time.Duration{0, 200 * ms, 600 * ms}) {
		t.Fatalf("modelled latency %v, scheduler's wait %v", model, sched)
	}
	for i := range s.Delays[1] {
		if s.ModelDelays[1][i]+s.SchedDelays[1][i] != s.Delays[1][i] {
			t.Errorf("task %d: %v + %v != %v", i, s.ModelDelays[1][i], s.SchedDelays[1][i], s.Delays[1][i])
		}
	}
	out := s.String()
	for _, want := range []string{"modelled latency", "scheduler's own wait", "200ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	page := string(HTML(s))
	for _, want := range []string{"Where the delay comes from", "modelled latency", "scheduler&#39;s own wait", "<td>200ms</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// The limits model has no latency: the scheduler's wait is the whole delay.
func TestDelaySplitLimits(t *testing.T) {
	s, err := Run(Options{Trace: modelFixture(t), End: 700 * time.Second, Model: ModelLimits, CPUOvercommit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.ModelDelays[1], []time.Duration{0, 0}) || !slices.Equal(s.SchedDelays[1], s.Delays[1]) {
		t.Fatalf("modelled %v, scheduler %v, total %v", s.ModelDelays[1], s.SchedDelays[1], s.Delays[1])
	}
}

// Seed changes the random draws of the latency tail (and so decisions);
// seed 0 is the draw the replay has always made.
func TestSeedChangesDraws(t *testing.T) {
	o := Options{Model: ModelReclaim, SubmitLatency: time.Second}
	o.setModelDefaults()
	prod := tierIndex("production")
	var same, differ int
	for i := range 200 {
		key := strings.Repeat("k", i%7) + string(rune('a'+i%26))
		a := o.tailExtra(prod, key)
		o.Seed = 3
		b := o.tailExtra(prod, key)
		o.Seed = 0
		if a == b {
			same++
		} else {
			differ++
		}
		if a != o.tailExtra(prod, key) {
			t.Fatal("draws are not a function of key and seed")
		}
	}
	if differ < 50 {
		t.Errorf("seed 3 changed %d of 200 draws", differ)
	}
	if !o.RandomDraws() || (&Options{Model: ModelLimits}).RandomDraws() || (&Options{TailTiers: []string{}}).RandomDraws() {
		t.Error("RandomDraws: reclaim with a tail has draws, limits and no tail tiers have none")
	}
}
