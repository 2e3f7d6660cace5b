package node

import (
	"math"

	"github.com/paddock-sched/paddock/internal/resource"
)

// fan is the most slots a page holds. A page that falls under a quarter
// of it merges into a sibling with room.
const fan = 32

// page is a node of the index's B+-tree. On a leaf, slot i is an entry: a
// node's place in the order and, in column i of max, its available
// resources (ineligible for nodes that take no normal allocation). On an
// inner page, slot i summarizes child kid[i]: its greatest entry and the
// maximum of each of its columns. The columns are stored type by type, so
// the loops over a page's slots read contiguous memory; only the first
// width types are written, the others stay zero.
type page struct {
	n    int
	leaf bool
	up   *page // parent, nil for the root
	at   int   // slot in up
	k    [fan]ekey
	kid  [fan]*page
	max  [resource.MaxTypes][fan]int64
}

// slot returns the slot of leaf p holding n.
func (p *page) slot(n *Node) int {
	for i := range p.n {
		if p.k[i].node == n {
			return i
		}
	}
	panic("node: index entry not on its page")
}

// search returns the number of p's slots that sort before e.
func (p *page) search(e *ekey) int {
	lo, hi := 0, p.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.k[m].less(e) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// before returns the greatest entry before leaf p's first, or nil.
func (p *page) before() *ekey {
	for ; p.up != nil; p = p.up {
		if p.at > 0 {
			return &p.up.k[p.at-1]
		}
	}
	return nil
}

// after returns the least entry after leaf p's last, or nil.
func (p *page) after() *ekey {
	for ; p.up != nil; p = p.up {
		if p.at < p.up.n-1 {
			q := p.up.kid[p.at+1]
			for !q.leaf {
				q = q.kid[0]
			}
			return &q.k[0]
		}
	}
	return nil
}

func (p *page) ascend(fn func(*Node) bool) bool {
	for i := range p.n {
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

// insert puts entry e with available v in its leaf, splitting full pages
// on the way.
func (x *Index) insert(e *ekey, v *resource.Vector) {
	p := x.root
	for !p.leaf {
		p = p.kid[min(p.search(e), p.n-1)]
	}
	i := p.search(e)
	split := p.n == fan
	if split {
		q := x.split(p)
		if i > p.n {
			p, i = q, i-p.n
		}
	}
	x.open(p, i, 1)
	p.k[i] = *e
	for t := range x.width {
		p.max[t][i] = v[t]
	}
	e.node.pg = p
	if split {
		x.fixAll(p)
	} else {
		x.fix(p)
	}
}

// split moves the upper half of full page p to a new right sibling, which
// it returns, splitting full parents first; both halves are summarized in
// their parent, whose own summary is left to the caller (fixAll).
func (x *Index) split(p *page) *page {
	u := p.up
	if u == nil {
		u = x.newPage(false)
		u.n, u.kid[0], p.up, p.at = 1, p, u, 0
		x.root = u
	} else if u.n == fan {
		x.split(u)
		u = p.up
	}
	q := x.newPage(p.leaf)
	h := fan / 2
	x.copySlots(q, 0, p, h, fan-h)
	x.clearSlots(p, h, fan)
	q.n, p.n = fan-h, h
	x.open(u, p.at+1, 1)
	u.kid[p.at+1], q.up, q.at = q, u, p.at+1
	x.summarize(u, p.at)
	x.summarize(u, q.at)
	return q
}

// removeAt drops slot i of p. A page left empty leaves its parent, one
// left under a quarter full merges into a sibling with room, and a root
// with a single child gives way to it.
func (x *Index) removeAt(p *page, i int) {
	x.cut(p, i)
	u := p.up
	if u == nil {
		for r := x.root; !r.leaf && r.n == 1; r = x.root {
			x.root = r.kid[0]
			x.root.up, x.root.at = nil, 0
			x.drop(r)
		}
		return
	}
	if p.n == 0 {
		x.removeAt(u, p.at)
		x.drop(p)
		return
	}
	if p.n < fan/4 {
		if j := p.at - 1; j >= 0 && u.kid[j].n+p.n <= fan {
			l := u.kid[j]
			x.copySlots(l, l.n, p, 0, p.n)
			l.n += p.n
			x.summarize(u, j)
			x.removeAt(u, p.at)
			x.drop(p)
			return
		}
		if j := p.at + 1; j < u.n && u.kid[j].n+p.n <= fan {
			r := u.kid[j]
			x.open(r, 0, p.n)
			x.copySlots(r, 0, p, 0, p.n)
			x.summarize(u, j)
			x.removeAt(u, p.at)
			x.drop(p)
			return
		}
	}
	x.fix(p)
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
	x.clearSlots(p, 0, p.n)
	p.n, p.up, p.at = 0, nil, 0
	x.spare = append(x.spare, p)
}

// fix re-summarizes p in its parent, and the parent in its own, up to
// the first summary that does not change: the way up after a page's
// slots changed and every other summary is right.
func (x *Index) fix(p *page) {
	for p.up != nil && x.summarize(p.up, p.at) {
		p = p.up
	}
}

// fixAll re-summarizes every page from p up to the root.
func (x *Index) fixAll(p *page) {
	for ; p.up != nil; p = p.up {
		x.summarize(p.up, p.at)
	}
}

// summarize sets slot i of inner page u from its child and reports
// whether it changed.
func (x *Index) summarize(u *page, i int) bool {
	c := u.kid[i]
	changed := u.k[i] != c.k[c.n-1]
	u.k[i] = c.k[c.n-1]
	for t := range x.width {
		m := int64(math.MinInt64)
		for _, v := range c.max[t][:c.n] {
			m = max(m, v)
		}
		if u.max[t][i] != m {
			u.max[t][i], changed = m, true
		}
	}
	return changed
}

// open makes room for k slots at i of p, shifting the slots from i right.
func (x *Index) open(p *page, i, k int) {
	n := p.n
	copy(p.k[i+k:n+k], p.k[i:n])
	for t := range x.width {
		copy(p.max[t][i+k:n+k], p.max[t][i:n])
	}
	if !p.leaf {
		copy(p.kid[i+k:n+k], p.kid[i:n])
		for j := i + k; j < n+k; j++ {
			p.kid[j].at = j
		}
	}
	p.n += k
}

// cut drops slot i of p, shifting the slots after it left.
func (x *Index) cut(p *page, i int) {
	n := p.n
	copy(p.k[i:n-1], p.k[i+1:n])
	for t := range x.width {
		copy(p.max[t][i:n-1], p.max[t][i+1:n])
	}
	if !p.leaf {
		copy(p.kid[i:n-1], p.kid[i+1:n])
		for j := i; j < n-1; j++ {
			p.kid[j].at = j
		}
	}
	x.clearSlots(p, n-1, n)
	p.n--
}

// copySlots copies k slots of src from si to dst at di, re-parenting what
// they hold.
func (x *Index) copySlots(dst *page, di int, src *page, si, k int) {
	copy(dst.k[di:di+k], src.k[si:si+k])
	for t := range x.width {
		copy(dst.max[t][di:di+k], src.max[t][si:si+k])
	}
	if dst.leaf {
		for j := di; j < di+k; j++ {
			dst.k[j].node.pg = dst
		}
		return
	}
	copy(dst.kid[di:di+k], src.kid[si:si+k])
	for j := di; j < di+k; j++ {
		dst.kid[j].up, dst.kid[j].at = dst, j
	}
}

// clearSlots forgets slots i..j-1 of p so the nodes and pages they held
// can be collected.
func (x *Index) clearSlots(p *page, i, j int) {
	clear(p.k[i:j])
	clear(p.kid[i:j])
}
