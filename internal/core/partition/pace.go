package partition

import "time"

// A Pacer bounds how fast a partition hands allocations to its RM. An RM
// that acts on each allocation with calls of its own (the Kubernetes shim
// binds each pod with a request to the API server, and records two
// events) can be given allocations faster than its cluster takes them in:
// the SI has no confirmation that an allocation was acted on, so without
// a bound a burst of decisions becomes thousands of requests in flight at
// once, and the API server that serves them slows down for every client.
// A pacer decides at the pace the RM can act instead: the asks it holds
// back stay pending, to be decided later on the state as it is then.
//
// A partition asks its pacer before it searches a node for an ask (Ready),
// and tells it of every allocation it made (Took). An RM's partitions
// share one pacer. Its methods run on the engine's goroutine, with the
// pass's time.
type Pacer interface {
	// Ready returns the earliest time the next allocation may be made:
	// a time not after now means at once.
	Ready(now time.Time) time.Time
	// Took records n allocations made at now, those Ready did not gate
	// (a gang's placeholders, reserved asks) included.
	Took(now time.Time, n int)
}

// SetPacer installs the RM's pacer; nil (the default) places as fast as
// the pass goes.
func (p *Partition) SetPacer(pc Pacer) { p.pacer = pc }

// paced reports whether the pacer holds the pass's next allocation back;
// if it does, the pass ends there and the partition runs one again when
// the pacer is ready. Like an RM that cannot be asked (away.go), pacing
// leaves the ask it stopped at, and every ask after it, as they were.
func (p *Partition) paced(now time.Time) bool {
	if p.pacer == nil {
		return false
	}
	at := p.pacer.Ready(now)
	if !at.After(now) {
		return false
	}
	p.Stats.Paced++
	p.wakeAt(at)
	return true
}

// took tells the pacer of n allocations.
func (p *Partition) took(now time.Time, n int) {
	if p.pacer != nil && n > 0 {
		p.pacer.Took(now, n)
	}
}
