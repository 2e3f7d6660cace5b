// Package prio counts entries per priority and knows the highest one: an
// application's pending asks, a leaf queue's pending asks, a parent's
// children with something pending.
package prio

import "math"

// None is the highest priority of an empty count.
const None = math.MinInt32

// Counts is a slice of counts sorted by priority. A queue or application
// holds few distinct priorities, and a search over a short slice costs
// less than the map update it replaces on every ask taken in and placed.
// The zero value is empty and ready to use.
type Counts []entry

type entry struct {
	p int32
	n int
}

// Add adds n (negative to take away) to the count of priority p; a count
// that reaches zero or less is dropped.
func (c *Counts) Add(p int32, n int) {
	s := *c
	// the usual case first: one priority, or the highest one
	k := len(s) - 1
	if k >= 0 && s[k].p == p {
		if s[k].n += n; s[k].n <= 0 {
			*c = s[:k]
		}
		return
	}
	if k < 0 {
		// empty, as an application's count is between its asks when
		// each is placed before the next comes: no search
		if n > 0 {
			*c = append(s, entry{p: p, n: n})
		}
		return
	}
	// a binary search by hand: a comparison closure cost more than the
	// search on a short slice
	i, j := 0, len(s)
	for i < j {
		h := int(uint(i+j) >> 1)
		if s[h].p < p {
			i = h + 1
		} else {
			j = h
		}
	}
	found := i < len(s) && s[i].p == p
	switch {
	case found && s[i].n+n <= 0:
		*c = append(s[:i], s[i+1:]...)
	case found:
		s[i].n += n
	case n > 0:
		s = append(s, entry{})
		copy(s[i+1:], s[i:])
		s[i] = entry{p: p, n: n}
		*c = s
	}
}

// Max is the highest priority counted, None when none is.
func (c Counts) Max() int32 {
	if len(c) == 0 {
		return None
	}
	return c[len(c)-1].p
}

// Len is the number of distinct priorities counted.
func (c Counts) Len() int { return len(c) }

// Reset empties the count, keeping its storage.
func (c *Counts) Reset() { *c = (*c)[:0] }
