// Package latency owns the engine's timing of its own scheduling phases:
// choosing the next queue and application, searching a node for an ask,
// one RM node check and one preemption attempt (the reference's latency
// histograms, §6). The engine goroutine records into a Recorder without
// locks or allocation; its owner drains the Recorder into the metrics once
// per step. A nil Recorder, or one without a stopwatch, records nothing,
// so tests and the simulator pay one nil check per phase and stay
// deterministic.
package latency

import "time"

// Phase is a timed phase of scheduling.
type Phase uint8

const (
	// QueueSort is one walk of the queue orderings from the root to the
	// leaf to serve next (reference: node_sorting_latency, level queue).
	QueueSort Phase = iota
	// AppSort is one choice of a leaf's next application (level app).
	AppSort
	// NodeEvaluation is one search of a node for an ask, RM node checks
	// included (reference: trynode_evaluation).
	NodeEvaluation
	// NodeCheck is one RM node check of an ask on a node, the Predicates
	// callback (reference: trynode_latency).
	NodeCheck
	// Preemption is one preemption attempt for an ask or a gang
	// (reference: trypreemption_latency).
	Preemption
	// Phases is the number of phases.
	Phases
)

// Bounds are the histogram bucket upper bounds: 0.1 ms to 1000 s, ten
// times apart (the reference's eight buckets).
var Bounds = [Buckets]time.Duration{
	100 * time.Microsecond, time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond,
	time.Second, 10 * time.Second, 100 * time.Second, 1000 * time.Second,
}

// Buckets is the number of finite buckets.
const Buckets = 8

// Histogram counts the durations of one phase.
type Histogram struct {
	// Counts[i] counts durations in (Bounds[i-1], Bounds[i]]; Counts[Buckets]
	// those above the last bound. Not cumulative.
	Counts [Buckets + 1]uint64
	Sum    time.Duration
}

// Count is the number of durations.
func (h *Histogram) Count() uint64 {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Add counts one duration.
func (h *Histogram) Add(d time.Duration) {
	i := 0
	for i < Buckets && d > Bounds[i] {
		i++
	}
	h.Counts[i]++
	h.Sum += d
}

// Merge adds the counts of o.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.Counts {
		h.Counts[i] += c
	}
	h.Sum += o.Sum
}

// Recorder collects the phase durations of the engine. Only the engine
// goroutine uses it.
type Recorder struct {
	// Stopwatch reads a monotonic time; nil records nothing.
	Stopwatch func() time.Duration
	H         [Phases]Histogram
}

// NewRecorder returns a recorder timing with the monotonic clock.
func NewRecorder() *Recorder {
	base := time.Now()
	return &Recorder{Stopwatch: func() time.Duration { return time.Since(base) }}
}

// Start returns the time a phase starts (0 when not recording).
func (r *Recorder) Start() time.Duration {
	if r == nil || r.Stopwatch == nil {
		return 0
	}
	return r.Stopwatch()
}

// Stop records phase p as started at start and returns the time it
// stopped, the start of a phase that follows at once.
func (r *Recorder) Stop(p Phase, start time.Duration) time.Duration {
	if r == nil || r.Stopwatch == nil {
		return 0
	}
	now := r.Stopwatch()
	r.H[p].Add(now - start)
	return now
}

// Drain returns the histograms recorded since the last Drain and clears
// them.
func (r *Recorder) Drain() [Phases]Histogram {
	if r == nil {
		return [Phases]Histogram{}
	}
	h := r.H
	r.H = [Phases]Histogram{}
	return h
}
