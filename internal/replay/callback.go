package replay

import (
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
)

// recorder is the replay RM's side of the SI: it records what the
// scheduler decided.
type recorder struct {
	callback.Nop // predicates pass; events and scheduling states are dropped
	s            *sim
}

func (c *recorder) UpdateAllocation(r *si.AllocationResponse) error {
	s := c.s
	for _, a := range r.New {
		t := s.byKey[a.AllocationKey]
		if t == nil {
			continue
		}
		if t.allocAt >= 0 {
			continue // confirmation of a recovered allocation
		}
		t.allocAt = s.now
		s.placeOn(t, a.NodeID)
		s.stats.pendingNow--
		s.stats.running++
		s.stats.Scheduled++
		if t.submit > 0 && t.submit >= s.opts.Start {
			// submitted in the window: a delay to compare with the trace's
			// (those pending at trace start waited for an unknown time;
			// those of a warm-up are not counted)
			s.stats.delay(t.tier, s.now-t.submit, t.reachAt-t.submit)
			s.placed = append(s.placed, placedTask{app: t.app, delay: s.now - t.submit})
		}
		s.decision("alloc", t.key, t.node)
		s.planReserve(t)
		if t.ended {
			if t.duration < 0 {
				t.duration = 0 // never ran in the trace: ends at once
			}
			s.scheduleRelease(t)
		}
	}
	for _, rel := range r.Released {
		preempted := rel.TerminationType == si.TerminationType_PREEMPTED_BY_SCHEDULER
		if preempted {
			s.stats.Preempted++
			// like a kubelet killing the pod, the RM confirms a preemption
			// at once: the victim's resources go to the preemptor
			s.queued.release = append(s.queued.release, &si.AllocationRelease{
				ApplicationID: rel.ApplicationID, AllocationKey: rel.AllocationKey,
				TerminationType: si.TerminationType_PREEMPTED_BY_SCHEDULER,
			})
		}
		t := s.byKey[rel.AllocationKey]
		if t == nil || t.allocAt < 0 {
			continue
		}
		s.leave(t)
		s.stats.running--
		if preempted {
			// back to the pending queue, as Borg does (requeue.go)
			s.decision("preempted", t.key, t.node)
			s.requeuePreempted(t, s.now)
			continue
		}
		// the scheduler took it away (its node went): the trace resubmits
		// what it wants to run again
		t.allocAt = -1
		t.sent = false
		delete(s.byKey, t.key)
		s.stats.Lost++
		s.decision("lost", t.key, t.node)
	}
	for _, rej := range r.RejectedAllocations {
		s.stats.RejectedAsks++
		if t := s.byKey[rej.AllocationKey]; t != nil {
			if t.allocAt >= 0 {
				s.leave(t)
				s.stats.running--
				s.stats.Recovered--
				s.stats.RejectedRecoveries++
			} else if t.sent {
				s.stats.pendingNow--
			}
			t.sent, t.allocAt = false, -1
			delete(s.byKey, t.key)
		}
		s.stats.reject(rej.Reason)
	}
	return nil
}

func (c *recorder) UpdateApplication(r *si.ApplicationResponse) error {
	for _, u := range r.Updated {
		switch u.State {
		case "Completed", "Failed", "Expired":
			// the job's next task creates the application again
			delete(c.s.appQueue, u.ApplicationID)
			if job, ok := c.s.appJob[u.ApplicationID]; ok {
				delete(c.s.apps, job)
				delete(c.s.appJob, u.ApplicationID)
			}
		}
	}
	for _, rej := range r.Rejected {
		c.s.stats.RejectedApps++
		c.s.stats.reject(rej.Reason)
	}
	return nil
}

func (c *recorder) UpdateNode(r *si.NodeResponse) error {
	c.s.stats.Nodes += len(r.Accepted)
	c.s.stats.RejectedNodes += len(r.Rejected)
	return nil
}
