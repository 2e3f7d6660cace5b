// Package latency owns the engine's timing of its own scheduling phases:
// choosing the next queue and application, searching a node for an ask,
// one RM node check and one preemption attempt (the reference's latency
// histograms, §6). The engine goroutine records into a Recorder without
// locks or allocation; its owner drains the Recorder into the metrics once
// per step. The short phases of every decision are sampled (SampleEvery).
// A nil Recorder, or one without a stopwatch, records nothing, so tests
// and the simulator pay one nil check per phase and stay deterministic.
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
func (h *Histogram) Add(d time.Duration) { h.AddN(d, 1) }

// AddN counts duration d n times.
func (h *Histogram) AddN(d time.Duration, n uint64) {
	i := 0
	for i < Buckets && d > Bounds[i] {
		i++
	}
	h.Counts[i] += n
	h.Sum += d * time.Duration(n)
}

// Merge adds the counts of o.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.Counts {
		h.Counts[i] += c
	}
	h.Sum += o.Sum
}

// SampleEvery is, per phase, one in how many occurrences is timed; the
// timed one counts for all of them. The phases of every decision (queue
// and application choice, node search, the RM's node check of an
// in-process RM) take about a microsecond or less, so reading the clock
// around each would cost a measurable share of the decision (a monotonic
// clock read is 20 ns on bare metal, over 100 ns on some virtual
// machines); one in 16 keeps timing around a percent of the decision.
// Preemption attempts cost far more than a clock read and are timed every
// time.
var SampleEvery = [Phases]uint64{QueueSort: 16, AppSort: 16, NodeEvaluation: 16, NodeCheck: 16, Preemption: 1}

// Recorder collects the phase durations of the engine. Only the engine
// goroutine uses it.
type Recorder struct {
	// Stopwatch reads a monotonic time (never negative); nil records
	// nothing.
	Stopwatch func() time.Duration
	H         [Phases]Histogram
	seen      [Phases]uint64
}

// NewRecorder returns a recorder timing with the monotonic clock.
func NewRecorder() *Recorder {
	base := time.Now()
	return &Recorder{Stopwatch: func() time.Duration { return time.Since(base) }}
}

// Start begins an occurrence of phase p. It returns the start time when
// this occurrence is timed (one in SampleEvery[p]), -1 when it is not.
// A recorder that records nothing costs its callers a test, not a call:
// Start and Stop are small enough to be inlined, their work is not.
func (r *Recorder) Start(p Phase) time.Duration {
	if r == nil || r.Stopwatch == nil {
		return -1
	}
	return r.start(p)
}

// start counts an occurrence of phase p and times one in SampleEvery[p].
// It stays a call: inlined, it would make Start too large to inline.
//
//go:noinline
func (r *Recorder) start(p Phase) time.Duration {
	r.seen[p]++
	if r.seen[p]%SampleEvery[p] != 0 {
		return -1
	}
	return r.Stopwatch()
}

// Stop ends the occurrence of phase p that Start began: a timed one is
// counted SampleEvery[p] times, for itself and the untimed ones before it.
func (r *Recorder) Stop(p Phase, start time.Duration) {
	if start >= 0 {
		r.stop(p, start)
	}
}

// stop records a timed occurrence of phase p.
func (r *Recorder) stop(p Phase, start time.Duration) {
	r.H[p].AddN(r.Stopwatch()-start, SampleEvery[p])
}

// Drain returns the histograms recorded since the last Drain and clears
// them. The counts are exact up to the occurrences since each phase's
// last timed one (fewer than SampleEvery), which a later Drain reports.
func (r *Recorder) Drain() [Phases]Histogram {
	if r == nil {
		return [Phases]Histogram{}
	}
	h := r.H
	r.H = [Phases]Histogram{}
	return h
}
