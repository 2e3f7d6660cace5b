package replay

import "time"

// The 2019 trace records Borg's batch scheduler (Tirmazi et al., "Borg:
// the Next Generation", EuroSys 2020): a job submitted to it is QUEUEd,
// "marked not eligible for scheduling by the batch scheduler" (the trace
// documentation), until the batch scheduler ENABLEs it, when it "became
// eligible for scheduling". The Borg scheduler never sees a queued job's
// tasks, and the trace's delay (SUBMIT to SCHEDULE) includes the wait, so
// the replay holds a queued job's asks back from the scheduler until the
// trace's ENABLE: the batch scheduler's admission is input, like the
// submissions, not a decision the replay makes. The 2011 trace has no
// batch scheduler events.

// gatedTask is a task waiting for its job's ENABLE, at one submission.
type gatedTask struct {
	t   *task
	gen int
}

// queueJob marks a job queued by the batch scheduler. Its asks still
// waiting for this cycle are taken back.
func (s *sim) queueJob(job int64) {
	if _, ok := s.gated[job]; ok {
		return
	}
	s.gated[job] = nil
	asks := s.queued.asks[:0]
	for _, a := range s.queued.asks {
		if t := s.byKey[a.AllocationKey]; t != nil && t.job == job && a.NodeID == "" && t.allocAt < 0 {
			t.held = true
			s.gated[job] = append(s.gated[job], gatedTask{t, t.gen})
			continue
		}
		asks = append(asks, a)
	}
	s.queued.asks = asks
}

// gate keeps a task of a queued job back until the ENABLE, and reports
// whether it did. The task stays held: sent, but not at the scheduler.
func (s *sim) gate(t *task) bool {
	waiting, ok := s.gated[t.job]
	if !ok {
		return false
	}
	s.gated[t.job] = append(waiting, gatedTask{t, t.gen})
	return true
}

// enableJob lets a queued job's waiting tasks reach the scheduler.
func (s *sim) enableJob(job int64, now time.Duration) {
	waiting, ok := s.gated[job]
	if !ok {
		return
	}
	delete(s.gated, job)
	for _, w := range waiting {
		t := w.t
		if t.gen != w.gen || !t.held || !t.sent {
			continue // withdrawn or submitted again since
		}
		t.held = false
		if _, ok := s.appJob[t.app]; !ok {
			t.app = s.app(t.job, t.user, t.tier)
		}
		s.queueAsk(t, max(now, t.submit))
	}
}
