package latency

import (
	"fmt"
	"testing"
	"time"
)

// TestBuckets: a duration counts in the first bucket whose bound it does
// not exceed (bounds are inclusive, as Prometheus' le), past the last one
// in the overflow bucket.
func TestBuckets(t *testing.T) {
	var h Histogram
	for _, d := range []time.Duration{0, 100 * time.Microsecond, 100*time.Microsecond + 1, time.Second, 2000 * time.Second} {
		h.Add(d)
	}
	want := [Buckets + 1]uint64{2, 1, 0, 0, 1, 0, 0, 0, 1}
	if h.Counts != want || h.Count() != 5 {
		t.Errorf("counts %v (%d), want %v", h.Counts, h.Count(), want)
	}
	if wantSum := 200*time.Microsecond + 1 + time.Second + 2000*time.Second; h.Sum != wantSum {
		t.Errorf("sum %v, want %v", h.Sum, wantSum)
	}
	var m Histogram
	m.Merge(&h)
	m.Merge(&h)
	if m.Count() != 10 || m.Sum != 2*h.Sum || m.Counts[8] != 2 {
		t.Errorf("merged %+v", m)
	}
}

// TestRecorder: phases are timed with the stopwatch, the sampled ones
// once in SampleEvery occurrences counting for all of them, Drain hands
// the counts over once, and a nil recorder or one without a stopwatch
// records nothing.
func TestRecorder(t *testing.T) {
	now := time.Duration(0)
	reads := 0
	r := &Recorder{Stopwatch: func() time.Duration { reads++; return now }}
	start := r.Start(Preemption)
	now += 5 * time.Second
	r.Stop(Preemption, start)
	every := SampleEvery[QueueSort]
	for i := range 2*every + 3 {
		start := r.Start(QueueSort)
		if timed := start >= 0; timed != ((i+1)%every == 0) {
			t.Fatalf("occurrence %d: timed %v", i+1, timed)
		}
		now += 2 * time.Millisecond
		r.Stop(QueueSort, start)
	}
	if reads != 2+2*2 {
		t.Errorf("%d clock reads, want 6: two for the preemption, two per timed queue sort", reads)
	}
	h := r.Drain()
	if h[QueueSort].Count() != 2*every || h[QueueSort].Sum != time.Duration(2*every)*2*time.Millisecond || h[QueueSort].Counts[2] != 2*every {
		t.Errorf("queue sort %+v, want %d of 2 ms", h[QueueSort], 2*every)
	}
	if h[Preemption].Sum != 5*time.Second || h[Preemption].Counts[5] != 1 || h[AppSort].Count() != 0 {
		t.Errorf("preemption %+v, app sort %+v", h[Preemption], h[AppSort])
	}
	if again := r.Drain(); again != ([Phases]Histogram{}) {
		t.Errorf("second drain %+v, want empty", again)
	}
	// the 3 occurrences since the last timed one count with the next
	for range every - 3 {
		r.Stop(QueueSort, r.Start(QueueSort))
	}
	if h := r.Drain(); h[QueueSort].Count() != every {
		t.Errorf("after the next timed queue sort: %d, want %d", h[QueueSort].Count(), every)
	}
	var none *Recorder
	none.Stop(NodeCheck, none.Start(NodeCheck))
	off := &Recorder{}
	off.Stop(NodeCheck, off.Start(NodeCheck))
	if off.Drain() != ([Phases]Histogram{}) || none.Drain() != ([Phases]Histogram{}) {
		t.Error("a recorder without a stopwatch recorded")
	}
	rec := NewRecorder()
	rec.Stop(Preemption, rec.Start(Preemption))
	if got := rec.Drain(); got[Preemption].Count() != 1 {
		t.Error("NewRecorder did not record")
	}
}

// BenchmarkPhase is the cost of timing one phase: a sampled one (one
// clock read pair in SampleEvery), one timed every time, and the nil
// check when timing is off.
func BenchmarkPhase(b *testing.B) {
	for _, p := range []Phase{QueueSort, Preemption} {
		b.Run(fmt.Sprintf("every=%d", SampleEvery[p]), func(b *testing.B) {
			r := NewRecorder()
			for b.Loop() {
				r.Stop(p, r.Start(p))
			}
		})
	}
	b.Run("off", func(b *testing.B) {
		var r *Recorder
		for b.Loop() {
			r.Stop(QueueSort, r.Start(QueueSort))
		}
	})
}
