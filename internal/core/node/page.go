package node

import (
	"github.com/paddock-sched/paddock/internal/resource"
)

// fan is the most slots a page holds. A page that falls under a quarter
// of it merges into a sibling with room.
const fan = 32

// page is a node of the index's B+-tree. Its slots in use are the window
// lo..hi-1 of its arrays, so the entry at either end leaves without the
// others moving: under the Fair policy the front node leaves its leaf on
// every allocation. On a leaf, slot i is an entry: a
// node's place in the order and, in column i of max, its available
// resources (ineligible for nodes that take no normal allocation). On an
// inner page, slot i holds child kid[i], the maximum of each of its
// columns and, from slot lo+1 on, a separator k[i]: every entry under kid[i]
// sorts at or after it and every entry under kid[i-1] before it. The
// separators change only when pages split or merge, so an entry arriving
// at the back of the order or leaving its front does not climb the tree.
// A separator is a copy of the entry that began a page when it split, so
// it may name a node removed since, which stays reachable (only its ID is
// read) until a split or merge replaces the separator. The columns are stored type by type, so the loops over a page's slots
// read contiguous memory; only the first width types are written, the
// others stay zero.
type page struct {
	lo   int
	hi   int
	leaf bool
	sfx  bool  // the index's suffix of this page is right (suffix.go)
	up   *page // parent, nil for the root
	at   int   // slot in up
	k    [fan]ekey
	kid  [fan]*page
	max  [resource.MaxTypes][fan]int64
}

// slot returns the slot of leaf p holding n.
func (p *page) slot(n *Node) int {
	for i := p.lo; i < p.hi; i++ {
		if p.k[i].node == n {
			return i
		}
	}
	panic("node: index entry not on its page")
}

// upper returns the first of p's slots from lo on whose key sorts after
// e, or p.hi.
func (p *page) upper(e *ekey, lo int) int {
	hi := p.hi
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if e.less(&p.k[m]) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// floor returns a bound that sorts after every entry before leaf p and
// at or before p's first (the nearest separator to its left), or nil.
func (p *page) floor() *ekey {
	for ; p.up != nil; p = p.up {
		if p.at > p.up.lo {
			return &p.up.k[p.at]
		}
	}
	return nil
}

// ceiling returns a bound that sorts after leaf p's last entry and at or
// before every entry after p (the nearest separator to its right), or nil.
func (p *page) ceiling() *ekey {
	for ; p.up != nil; p = p.up {
		if p.at < p.up.hi-1 {
			return &p.up.k[p.at+1]
		}
	}
	return nil
}

func (p *page) ascend(fn func(*Node) bool) bool {
	for i := p.lo; i < p.hi; i++ {
		if p.leaf {
			if !fn(p.k[i].node) {
				return false
			}
		} else if !p.kid[i].ascend(fn) {
			return false
		}
	}
	return true
}

// size returns the number of slots p holds.
func (p *page) size() int { return p.hi - p.lo }

// insert puts entry e with available v in its leaf, splitting full pages
// on the way.
func (x *Index) insert(e *ekey, v *resource.Vector) {
	p, i := x.place(e)
	split := p.size() == fan
	switch {
	case split && i == fan && p.ceiling() == nil:
		// e goes after every entry (the Fair policy's moves end there):
		// it starts a page of its own, so the leaves behind stay full and
		// no entry changes page
		p, i = x.split(p, fan, e), 0
	case split:
		q := x.split(p, fan/2, nil)
		if i > p.hi {
			p, i = q, i-p.hi
		}
	}
	i = x.open(p, i, 1)
	p.k[i] = *e
	for t := range x.width {
		p.max[t][i] = v[t]
	}
	e.node.pg = p
	if split {
		x.fixAll(p)
	} else {
		x.adjust(p, &ineligible, v)
	}
}

// place returns the leaf and slot where e goes. Under the Fair policy an
// allocated node usually goes after every entry: the last leaf's last
// entry says so in one comparison, where the search down the tree takes a
// handful per level. (Every separator on the way down sorts at or before
// that entry, so the search would end at the same place.)
func (x *Index) place(e *ekey) (*page, int) {
	p := x.root
	for !p.leaf {
		p = p.kid[p.hi-1]
	}
	if p.hi > p.lo && p.k[p.hi-1].less(e) {
		return p, p.hi
	}
	p = x.root
	for !p.leaf {
		p = p.kid[p.upper(e, p.lo+1)-1]
	}
	return p, p.upper(e, p.lo)
}

// split moves the slots of full page p (its window starts at 0) from h
// on to a new right sibling, which it returns, splitting full parents
// first. The two are separated in their parent by sep, or the new page's
// first key when sep is nil; the parent holds their maxima (the new
// page's only once it has slots), its own are left to the caller
// (fixAll).
func (x *Index) split(p *page, h int, sep *ekey) *page {
	u := p.up
	if u == nil {
		u = x.newPage(false)
		u.lo, u.hi, u.kid[0], p.up, p.at = 0, 1, p, u, 0
		x.root = u
	} else if u.size() == fan {
		x.split(u, fan/2, nil)
		u = p.up
	}
	q := x.newPage(p.leaf)
	x.copySlots(q, 0, p, h, fan-h)
	x.clearSlots(p, h, fan)
	q.hi, p.hi = fan-h, h
	p.sfx = false
	j := x.open(u, p.at+1, 1)
	u.kid[j], q.up, q.at = q, u, j
	if sep == nil {
		sep = &q.k[0]
	}
	u.k[j] = *sep
	x.summarize(u, p.at)
	if q.hi > 0 {
		x.summarize(u, j)
	}
	return q
}

// removeAt drops slot i of p. A page left empty leaves its parent, one
// left under a quarter full merges into a sibling with room, and a root
// with a single child gives way to it.
func (x *Index) removeAt(p *page, i int) {
	var old resource.Vector
	for t := range x.width {
		old[t] = p.max[t][i]
	}
	x.cut(p, i)
	u := p.up
	if u == nil {
		for r := x.root; !r.leaf && r.size() == 1; r = x.root {
			x.root = r.kid[r.lo]
			x.root.up, x.root.at = nil, 0
			x.drop(r)
		}
		return
	}
	k := p.size()
	if k == 0 {
		x.removeAt(u, p.at)
		x.drop(p)
		return
	}
	if k < fan/4 {
		if j := p.at - 1; j >= u.lo && u.kid[j].size()+k <= fan {
			l := u.kid[j]
			d := x.open(l, l.hi, k)
			x.copySlots(l, d, p, p.lo, k)
			if !p.leaf {
				l.k[d] = u.k[p.at] // p's first child: p's separator
			}
			x.summarize(u, j)
			x.removeAt(u, p.at)
			x.drop(p)
			return
		}
		if j := p.at + 1; j < u.hi && u.kid[j].size()+k <= fan {
			r := u.kid[j]
			d := x.open(r, r.lo, k)
			x.copySlots(r, d, p, p.lo, k)
			if !p.leaf {
				r.k[d+k] = u.k[j] // r's first child: r's separator
			}
			u.k[j] = u.k[p.at] // r takes p's place in the order
			x.summarize(u, j)
			x.removeAt(u, p.at)
			x.drop(p)
			return
		}
	}
	x.adjust(p, &old, &ineligible)
}

// newPage returns an empty page, a spare one if there is one.
func (x *Index) newPage(leaf bool) *page {
	k := len(x.spare)
	if k == 0 {
		return &page{leaf: leaf}
	}
	p := x.spare[k-1]
	x.spare = x.spare[:k-1]
	p.leaf = leaf
	return p
}

// drop keeps page p, which has left the tree, for a later split. Its
// columns past the first width types are still zero, as a new page's.
func (x *Index) drop(p *page) {
	x.clearSlots(p, p.lo, p.hi)
	p.lo, p.hi, p.up, p.at, p.sfx = 0, 0, nil, 0, false
	x.spare = append(x.spare, p)
}

// adjust updates the maxima above p after one of its slots went from old
// to new (ineligible: the slot left or arrived), up to the first level
// where none changes. A maximum rises to new where new reaches it, and is
// recomputed where old was it; the same test holds a level up, since a
// maximum only ever changes to new or down from old.
func (x *Index) adjust(p *page, old, new *resource.Vector) {
	for u := p.up; u != nil; p, u = u, u.up {
		changed := false
		for t := range x.width {
			m := u.max[t][p.at]
			switch {
			case new[t] > m:
				m = new[t]
			case new[t] < m && old[t] >= m:
				m = x.colMax(p, t)
			default:
				continue
			}
			if m != u.max[t][p.at] {
				u.max[t][p.at], changed = m, true
				u.touch(p.at)
			}
		}
		if !changed {
			return
		}
	}
}

// fixAll re-summarizes every page from p up to the root.
func (x *Index) fixAll(p *page) {
	for ; p.up != nil; p = p.up {
		x.summarize(p.up, p.at)
	}
}

// summarize sets the maxima of slot i of inner page u from its child.
func (x *Index) summarize(u *page, i int) {
	c := u.kid[i]
	u.touch(i)
	for t := range x.width {
		u.max[t][i] = rowMax(c.max[t][c.lo:c.hi])
	}
}
