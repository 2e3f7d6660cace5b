package node

import (
	"math"

	"github.com/paddock-sched/paddock/internal/resource"
)

// suffix holds, for one page, the maximum of each column over the slots
// from each slot to the end of the window. Under the Fair policy the entry
// leaving the index on every allocation is the front leaf's first, usually
// the one with the most available, and the leaf's maxima must then be
// recomputed: with the suffix that is max[t][lo+1] instead of a pass over
// the page, and it stays right while only the window's first slot changes
// or leaves (a page's sfx flag says so; any other change clears it).
type suffix struct {
	p   *page
	max [resource.MaxTypes][fan]int64
}

// colMax returns the greatest value of column t over p's window, which is
// not empty. Leaves and inner pages have a suffix each, so a change at the
// front leaf climbing into the front inner page keeps both.
func (x *Index) colMax(p *page, t int) int64 {
	if p.hi-p.lo == 1 {
		return p.max[t][p.lo]
	}
	s := &x.sfx[0]
	if !p.leaf {
		s = &x.sfx[1]
	}
	if s.p != p || !p.sfx {
		x.fill(s, p)
	}
	return max(p.max[t][p.lo], s.max[t][p.lo+1])
}

// fill computes s for the slots of p after the window's first.
func (x *Index) fill(s *suffix, p *page) {
	if s.p != nil {
		s.p.sfx = false
	}
	s.p, p.sfx = p, true
	for t := range x.width {
		m, col, out := int64(math.MinInt64), &p.max[t], &s.max[t]
		for j := p.hi - 1; j > p.lo; j-- {
			m = max(m, col[j])
			out[j] = m
		}
	}
}

// touch records that slot i of p changed: the suffix stays right for a
// change of the window's first slot only.
func (p *page) touch(i int) {
	if i != p.lo {
		p.sfx = false
	}
}
