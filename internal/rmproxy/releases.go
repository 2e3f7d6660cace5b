package rmproxy

import (
	"fmt"
	"slices"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/partition"
)

// applyReleases applies an RM's releases: of asks and allocations (one key
// or a whole application), of foreign allocations, the confirmations of
// placeholder replacements, and failed bindings.
func (s *Service) applyReleases(rmID string, releases []*si.AllocationRelease, now time.Time) {
	for _, r := range releases {
		if r == nil {
			continue
		}
		p, err := s.eng.Partition(rmID, r.PartitionName)
		if err != nil {
			continue
		}
		if r.TerminationType == si.TerminationType_SCHEDULING_FAILED_ON_RM {
			s.requeue(rmID, p, r, now)
			continue
		}
		// the RM released the key (or the whole application): it will not
		// report a failed binding of an allocation released with its node
		p.ForgetLost(r.ApplicationID, r.AllocationKey)
		switch {
		case r.AllocationKey == "":
			// the whole application's asks and allocations
			if a, ok := p.App(r.ApplicationID); ok {
				var keys []string
				a.Each(func(x *app.Allocation) bool { keys = append(keys, x.Key); return true })
				slices.Sort(keys)
				for _, k := range keys {
					s.rmRelease(p, a, k, r.TerminationType, now)
				}
			}
		case r.ApplicationID == "" && p.RemoveForeign(r.AllocationKey):
		case r.TerminationType == si.TerminationType_PLACEHOLDER_REPLACED:
			p.ConfirmReplacement(r.ApplicationID, r.AllocationKey, now)
		default:
			if a, ok := p.App(r.ApplicationID); ok {
				s.rmRelease(p, a, r.AllocationKey, r.TerminationType, now)
			}
		}
	}
}

// rmRelease releases key of a at the RM's request (reference §2.20). A
// TIMEOUT is the RM confirming a timeout the scheduler started: it leaves
// a pending ask alone (only STOPPED_BY_RM cancels asks). An allocation the
// RM stops (STOPPED_BY_RM, or no type) is confirmed back in
// AllocationResponse.released with STOPPED_BY_RM, as the reference does;
// TIMEOUT and PREEMPTED_BY_SCHEDULER confirmations are not echoed.
func (s *Service) rmRelease(p *partition.Partition, a *app.App, key string, tt si.TerminationType, now time.Time) {
	x, ok := a.Allocation(key)
	if !ok {
		return
	}
	if x.Pending() && tt == si.TerminationType_TIMEOUT {
		return
	}
	allocated := !x.Pending() && !x.Linked()
	// a placeholder the scheduler released (timeout, too small) is the
	// RM confirming that release, whatever type it gives
	echo := allocated && !x.Released && (tt == si.TerminationType_STOPPED_BY_RM || tt == si.TerminationType_UNKNOWN_TERMINATION_TYPE)
	if !echo {
		s.countRMRelease(p, a, key) // an echo is counted when it is delivered
	}
	if !p.Release(a.ID, key, now) || !echo {
		return
	}
	p.Out.Released = append(p.Out.Released, partition.Released{
		Partition: p.Name, AppID: a.ID, AllocationKey: key, Termination: partition.StoppedByRM,
		Message: "allocation removed at the RM's request",
	})
}

// requeue handles an RM's failed binding (SCHEDULING_FAILED_ON_RM): the
// allocation goes back to pending under its key and is placed again
// (Partition.Requeue), and so does one the scheduler released with its
// node while the RM was binding it. The release is not echoed to the RM,
// and one released with its node is not counted again. A report the
// partition cannot apply (unknown application or key, an ask that is not
// allocated, no key) changes nothing and is logged with its reason; it is
// not answered as a rejected allocation, which the shim would take as
// "fail the task".
func (s *Service) requeue(rmID string, p *partition.Partition, r *si.AllocationRelease, now time.Time) {
	var err error
	var node string
	var did partition.Requeued
	allocated := false
	if r.AllocationKey == "" {
		err = fmt.Errorf("application %s: a failed binding needs an allocation key", r.ApplicationID)
	} else {
		if a, ok := p.App(r.ApplicationID); ok {
			if x, ok := a.Allocation(r.AllocationKey); ok && !x.Pending() {
				allocated, node = true, x.NodeID
			}
		}
		if !allocated {
			node, _ = p.Lost(r.ApplicationID, r.AllocationKey, now)
		}
		did, err = p.Requeue(r.ApplicationID, r.AllocationKey, now)
	}
	if err != nil {
		s.warnIgnored("failed binding ignored", "rmID", rmID, "partition", p.Name, "app", r.ApplicationID,
			"key", r.AllocationKey, "reason", err.Error())
		return
	}
	l := s.hooks.Logger
	if allocated && s.counting() {
		s.tally.Released++
		if a, ok := p.App(r.ApplicationID); ok {
			s.tally.queue(p.Name, a.QueuePath).Released++
		}
	}
	if l == nil {
		return
	}
	switch did {
	case partition.RequeuedLost:
		l.Info("allocation released with its node: scheduling failed on the RM, back to pending", "rmID", rmID,
			"partition", p.Name, "app", r.ApplicationID, "key", r.AllocationKey, "node", node, "message", r.Message)
	case partition.RequeuedTimedOut:
		l.Info("placeholder released with its node: scheduling failed on the RM, released for its gang's timeout",
			"rmID", rmID, "partition", p.Name, "app", r.ApplicationID, "key", r.AllocationKey, "node", node)
	case partition.RequeuedReleased:
		l.Info("allocation removed: scheduling failed on the RM while it was being released", "rmID", rmID,
			"partition", p.Name, "app", r.ApplicationID, "key", r.AllocationKey, "node", node, "message", r.Message)
	default:
		l.Info("allocation removed: scheduling failed on the RM, back to pending", "rmID", rmID, "partition", p.Name,
			"app", r.ApplicationID, "key", r.AllocationKey, "node", node, "message", r.Message)
	}
}
