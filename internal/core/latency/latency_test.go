package latency

import (
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

// TestRecorder: phases are timed with the stopwatch, Stop returns the
// next phase's start, Drain hands the counts over once, and a nil
// recorder or one without a stopwatch records nothing.
func TestRecorder(t *testing.T) {
	now := time.Duration(0)
	r := &Recorder{Stopwatch: func() time.Duration { return now }}
	start := r.Start()
	now = 2 * time.Millisecond
	next := r.Stop(QueueSort, start)
	now += 5 * time.Second
	r.Stop(Preemption, next)
	h := r.Drain()
	if h[QueueSort].Count() != 1 || h[QueueSort].Sum != 2*time.Millisecond || h[QueueSort].Counts[2] != 1 {
		t.Errorf("queue sort %+v", h[QueueSort])
	}
	if h[Preemption].Sum != 5*time.Second || h[Preemption].Counts[5] != 1 || h[AppSort].Count() != 0 {
		t.Errorf("preemption %+v, app sort %+v", h[Preemption], h[AppSort])
	}
	if again := r.Drain(); again != ([Phases]Histogram{}) {
		t.Errorf("second drain %+v, want empty", again)
	}
	var none *Recorder
	none.Stop(NodeCheck, none.Start())
	off := &Recorder{}
	off.Stop(NodeCheck, off.Start())
	if off.Drain() != ([Phases]Histogram{}) || none.Drain() != ([Phases]Histogram{}) {
		t.Error("a recorder without a stopwatch recorded")
	}
	rec := NewRecorder()
	rec.Stop(NodeEvaluation, rec.Start())
	if got := rec.Drain(); got[NodeEvaluation].Count() != 1 {
		t.Error("NewRecorder did not record")
	}
}
