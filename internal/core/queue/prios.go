package queue

import "slices"

// prioCounts counts entries per priority (a leaf's pending asks, a
// parent's children with something pending) and knows the largest
// priority counted. It is a slice sorted by priority: a queue holds few
// distinct priorities, and a search over a short slice costs less than a
// map update on every ask taken in and every decision.
type prioCounts []prioCount

type prioCount struct {
	p int32
	n int
}

// add adds n (negative to take away) to the count of priority p; a count
// that reaches zero or less is dropped.
func (c *prioCounts) add(p int32, n int) {
	s := *c
	// binary search by hand: a comparison closure cost more than the
	// search on the usual one or two priorities
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
		*c = slices.Delete(s, i, i+1)
	case found:
		s[i].n += n
	case n > 0:
		*c = slices.Insert(s, i, prioCount{p: p, n: n})
	}
}

// max is the largest priority counted, minPrio when none is.
func (c prioCounts) max() int32 {
	if len(c) == 0 {
		return minPrio
	}
	return c[len(c)-1].p
}
