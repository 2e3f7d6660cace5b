package partition

import (
	"errors"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
)

// ErrRMUnavailable is what an RM's node check (Predicate) answers, wrapped
// or as is, when the RM cannot be asked at all: its callbacks stalled, or
// it has not yet heard of the placements made so far. It is not a veto of
// the node. A pass that meets it stops asking (every later check of the
// pass answers the same without calling the RM) and ends at once, leaving
// the ask it was placing, and every ask after it, as they were: no reason
// becomes NoNodeFits, no request event tells of refusals, no reservation
// or preemption is made for them and no ask is reported as waiting for
// cluster resources. The partition runs a pass again when the RM's owner
// asks it to reconsider (engine.Pause), or after RMAwayRetry.
var ErrRMUnavailable = errors.New("the resource manager cannot be asked about nodes now")

// RMAwayRetry is how long after a pass that ended on ErrRMUnavailable the
// partition tries again by itself, when nothing else makes it.
const RMAwayRetry = time.Second

// checkNode is the RM's node check as the pass calls it: once the RM
// answered ErrRMUnavailable in this pass, it is not called again.
func (p *Partition) checkNode(pred Predicate) Predicate {
	return func(x *app.Allocation, nodeID string, allocate bool) error {
		if p.rmAway {
			return ErrRMUnavailable
		}
		err := pred(x, nodeID, allocate)
		if err != nil && errors.Is(err, ErrRMUnavailable) {
			p.rmAway = true
		}
		return err
	}
}

// awayEnds ends a pass that met ErrRMUnavailable: it comes back later.
func (p *Partition) awayEnds(now time.Time) {
	p.Stats.RMAway++
	p.wakeAt(now.Add(RMAwayRetry))
}
