package app

import "time"

// rareFields are the fields of an Allocation that only preemption, gang
// replacement, the RM's bind failures and request events set: most asks
// never carry them, so they are allocated on the first setter that stores
// a non-zero value and kept from then on. Reads while they are absent
// return zero values, exactly what the fields held inline.
type rareFields struct {
	// replacing is, for a real ask of a gang, the placeholder it replaces
	// while the RM confirms that placeholder's release; replacedBy is the
	// reverse link on the placeholder.
	replacing, replacedBy *Allocation
	// on is, for a real ask replacing a placeholder, the node it goes to
	// when not the placeholder's (the RM refused that one for it)
	on string
	// preemptedFor is, on a victim of preemption, the ask it makes room for.
	preemptedFor *Allocation
	// victims counts an ask's victims whose release the RM has not
	// confirmed yet.
	victims int
	// avoid is the node the RM failed to bind the allocation on.
	avoid string
	// tookFrom lists the leaf queues an allocation placed by preemption
	// took its room from; until cooldownUntil they may not preempt it back.
	tookFrom         []string
	cooldownUntil    time.Time
	preemptCheckedAt time.Time
	predicatesToldAt time.Time
	// swapped is when a real ask of a gang took its placeholder's place
	// (rebound set): it holds its resources from then, not from its
	// Allocated time (which is the placeholder's). See bound.
	swapped time.Time
	rebound bool
}

// more returns the allocation's rare fields, allocating them on first use.
func (a *Allocation) more() *rareFields {
	if a.rare == nil {
		a.rare = &rareFields{}
	}
	return a.rare
}

// Replacing is, for a real ask of a gang, the placeholder it replaces while
// the RM confirms that placeholder's release (nil otherwise).
func (a *Allocation) Replacing() *Allocation {
	if a.rare == nil {
		return nil
	}
	return a.rare.replacing
}

// ReplacedBy is, on a placeholder, the real ask waiting to replace it (nil
// otherwise).
func (a *Allocation) ReplacedBy() *Allocation {
	if a.rare == nil {
		return nil
	}
	return a.rare.replacedBy
}

// ReplaceOn is, for a real ask waiting to replace a placeholder, the node
// it goes to when the RM confirms the placeholder's release, if not the
// placeholder's ("" otherwise).
func (a *Allocation) ReplaceOn() string {
	if a.rare == nil {
		return ""
	}
	return a.rare.on
}

// link makes real ask x wait for placeholder ph's release; ph nil with x's
// current placeholder unlinks both.
func link(x, ph *Allocation) {
	if ph == nil {
		if old := x.Replacing(); old != nil {
			old.rare.replacedBy = nil
			x.rare.replacing = nil
			x.rare.on = ""
		}
		return
	}
	x.more().replacing = ph
	ph.more().replacedBy = x
}

// PreemptedFor is, on a victim of preemption, the ask it makes room for
// (nil otherwise).
func (a *Allocation) PreemptedFor() *Allocation {
	if a.rare == nil {
		return nil
	}
	return a.rare.preemptedFor
}

// SetPreemptedFor sets the ask victim a makes room for (nil: none).
func (a *Allocation) SetPreemptedFor(x *Allocation) {
	if x != nil || a.rare != nil {
		a.more().preemptedFor = x
	}
}

// Victims counts the ask's victims of preemption whose release the RM has
// not confirmed yet.
func (a *Allocation) Victims() int {
	if a.rare == nil {
		return 0
	}
	return a.rare.victims
}

// AddVictims adds delta to the ask's count of unconfirmed victims.
func (a *Allocation) AddVictims(delta int) {
	if delta != 0 {
		a.more().victims += delta
	}
}

// Avoid is the node the RM failed to bind the allocation on (SI
// SCHEDULING_FAILED_ON_RM): the ask's next placement prefers any other
// node that fits. It is cleared once the ask is placed again.
func (a *Allocation) Avoid() string {
	if a.rare == nil {
		return ""
	}
	return a.rare.avoid
}

// SetAvoid sets the node the ask's next placement avoids ("": none).
func (a *Allocation) SetAvoid(node string) {
	if node != "" || a.rare != nil {
		a.more().avoid = node
	}
}

// TookFrom lists the leaf queues an allocation placed by preemption took
// its room from: until CooldownUntil those queues may not preempt it back
// (no preemption loops).
func (a *Allocation) TookFrom() []string {
	if a.rare == nil {
		return nil
	}
	return a.rare.tookFrom
}

// SetTookFrom sets the leaf queues the allocation took its room from.
func (a *Allocation) SetTookFrom(leaves []string) {
	if leaves != nil || a.rare != nil {
		a.more().tookFrom = leaves
	}
}

// CooldownUntil is when the queues in TookFrom may preempt the allocation
// again.
func (a *Allocation) CooldownUntil() time.Time {
	if a.rare == nil {
		return time.Time{}
	}
	return a.rare.cooldownUntil
}

// SetCooldownUntil sets CooldownUntil.
func (a *Allocation) SetCooldownUntil(t time.Time) {
	if !isZero(t) || a.rare != nil {
		a.more().cooldownUntil = t
	}
}

// PreemptCheckedAt is the ask's latest preemption attempt (zero: none).
func (a *Allocation) PreemptCheckedAt() time.Time {
	if a.rare == nil {
		return time.Time{}
	}
	return a.rare.preemptCheckedAt
}

// SetPreemptCheckedAt sets PreemptCheckedAt.
func (a *Allocation) SetPreemptCheckedAt(t time.Time) {
	if !isZero(t) || a.rare != nil {
		a.more().preemptCheckedAt = t
	}
}

// PredicatesToldAt is when a request event last told that the RM's
// predicates refused every node that fits the ask (rate-limited; zero:
// never).
func (a *Allocation) PredicatesToldAt() time.Time {
	if a.rare == nil {
		return time.Time{}
	}
	return a.rare.predicatesToldAt
}

// SetPredicatesToldAt sets PredicatesToldAt.
func (a *Allocation) SetPredicatesToldAt(t time.Time) {
	if !isZero(t) || a.rare != nil {
		a.more().predicatesToldAt = t
	}
}

// bound is when the allocation started holding its resources, from which
// its History counts: its Allocated time, or for a real ask of a gang the
// time it took its placeholder's place (the placeholder's Allocated time
// is kept as its own).
func (a *Allocation) bound() time.Time {
	if a.rare != nil && a.rare.rebound {
		return a.rare.swapped
	}
	return a.Allocated
}

// rebind records that the allocation holds its resources from now on,
// although its Allocated time stays as it was (a placeholder swap).
func (a *Allocation) rebind(now time.Time) {
	r := a.more()
	r.swapped, r.rebound = now, true
}

// unbind drops a rebind: the allocation counts from its Allocated time.
func (a *Allocation) unbind() {
	if a.rare != nil {
		a.rare.swapped, a.rare.rebound = time.Time{}, false
	}
}

// isZero reports whether t is the zero time.Time value itself (not merely
// an instant equal to it), so that a setter given the zero value stores
// nothing where nothing was.
func isZero(t time.Time) bool { return t == time.Time{} }
