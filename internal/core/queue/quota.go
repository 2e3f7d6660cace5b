package queue

import (
	"time"

	"github.com/paddock-sched/paddock/internal/resource"
)

// QuotaTrigger is a queue's pending quota-change preemption (reference
// §2.15). It lives in memory only; the partition maintains it.
type QuotaTrigger struct {
	// At is when usage over max is enforced by preemption; zero when
	// nothing is pending.
	At time.Time
	// Delay is the quota.preemption.delay At was computed with, so a
	// changed delay shifts At by the difference.
	Delay time.Duration
	// Checked is when the partition last looked for victims for the due
	// trigger; zero before the first look.
	Checked time.Time
}

// Over returns by how much used exceeds the queue's max in every limited
// type, 0 in the others.
func (q *Queue) Over(used resource.Vector) resource.Vector {
	var out resource.Vector
	if q.Max.IsUnlimited() {
		return out
	}
	for i := range used {
		if lim, ok := q.Max.Limit(resource.Index(i)); ok && used[i] > lim {
			out[i] = used[i] - lim
		}
	}
	return out
}

// OverGuaranteed returns what used holds above the queue's guarantee in
// the types of m: used itself where no guarantee is set, never negative;
// 0 outside m.
func (q *Queue) OverGuaranteed(used resource.Vector, m resource.Mask) resource.Vector {
	var out resource.Vector
	for i := range used {
		if !m.Has(resource.Index(i)) {
			continue
		}
		u := used[i]
		if g, ok := q.Guaranteed.Limit(resource.Index(i)); ok {
			u -= g
		}
		out[i] = max(u, 0)
	}
	return out
}

// UpdateQuotaTrigger arms, moves or clears the queue's quota-preemption
// trigger at time now. enabled says whether quota preemption applies to
// the queue at all (partition switch, managed queue, delay > 0). A queue
// whose usage exceeds its max gets At = now + delay unless a trigger is
// already pending (consecutive changes keep the first time); a changed
// delay shifts a pending trigger by the difference; usage at or below max
// clears it. It reports whether a trigger is pending.
func (q *Queue) UpdateQuotaTrigger(enabled bool, now time.Time) bool {
	t := &q.QuotaPreemption
	if !enabled || q.Over(q.Allocated).IsZero() {
		*t = QuotaTrigger{}
		return false
	}
	d := q.Props.QuotaPreemptionDelay
	switch {
	case t.At.IsZero():
		*t = QuotaTrigger{At: now.Add(d), Delay: d}
	case t.Delay != d:
		t.At = t.At.Add(d - t.Delay)
		t.Delay = d
		t.Checked = time.Time{}
	}
	return true
}
