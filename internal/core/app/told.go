package app

// Told names a pending reason the RM was told about for an ask, with a
// request event (reference §7): the event is sent when the reason starts
// and once more when it ends, not on every pass.
type Told uint8

// Reasons told per ask.
const (
	// ToldQueue: the ask does not fit in its queue's headroom.
	ToldQueue Told = 1 << iota
	// ToldQuota: the ask exceeds its user's or group's quota.
	ToldQuota
	toldKinds = 2
)

func (f Told) slot() int {
	if f == ToldQueue {
		return 0
	}
	return 1
}

// Tell marks every pending ask of x's class with reason f and calls fn for
// each ask that was not marked yet, oldest first. It costs O(1) when every
// ask of the class is marked already; otherwise it looks back from the
// newest ask only as far as the unmarked ones go, so new asks cost in
// their number.
func (a *App) Tell(x *Allocation, f Told, fn func(*Allocation)) {
	c := x.class
	if c == nil {
		return
	}
	missing := c.live - int(c.told[f.slot()])
	if missing == 0 {
		return
	}
	from := len(c.asks)
	for from > c.head && missing > 0 {
		from--
		if e := c.asks[from]; c.current(e) && e.a.told&f == 0 {
			missing--
		}
	}
	for i := from; i < len(c.asks); i++ {
		e := c.asks[i]
		if !c.current(e) || e.a.told&f != 0 {
			continue
		}
		e.a.told |= f
		c.told[f.slot()]++
		fn(e.a)
	}
}

// Untell clears reason f from every pending ask of x's class and calls fn
// for each ask that had it, oldest first. It costs O(1) when none has it.
func (a *App) Untell(x *Allocation, f Told, fn func(*Allocation)) {
	c := x.class
	if c == nil || c.told[f.slot()] == 0 {
		return
	}
	for i := c.head; i < len(c.asks) && c.told[f.slot()] > 0; i++ {
		e := c.asks[i]
		if !c.current(e) || e.a.told&f == 0 {
			continue
		}
		e.a.told &^= f
		c.told[f.slot()]--
		fn(e.a)
	}
}

// joinTold and leaveTold keep a class's counts of marked asks as an ask
// joins or leaves it.
func (c *class) joinTold(x *Allocation) {
	for s, f := range [toldKinds]Told{ToldQueue, ToldQuota} {
		if x.told&f != 0 {
			c.told[s]++
		}
	}
}

func (c *class) leaveTold(x *Allocation) {
	for s, f := range [toldKinds]Told{ToldQueue, ToldQuota} {
		if x.told&f != 0 {
			c.told[s]--
		}
	}
}
