package node

// The slot primitives of a page: making room, closing a gap, copying
// slots between pages and the maximum of a column.

// open makes room for k slots before slot i of p (lo <= i <= hi) and
// returns where the room starts: the slots before i move left when there
// is room there and they are fewer than those from i on, which move right
// otherwise; a window with room only on both sides together first moves
// to the start of the page.
func (x *Index) open(p *page, i, k int) int {
	p.sfx = false
	if p.lo >= k && (p.hi+k > fan || i-p.lo < p.hi-i) {
		x.move(p, p.lo-k, p.lo, i-p.lo)
		p.lo -= k
		return i - k
	}
	hi := p.hi
	if p.hi+k > fan {
		d := p.lo
		x.move(p, 0, d, p.hi-d)
		p.lo, p.hi, i = 0, p.hi-d, i-d
	}
	x.move(p, i+k, i, p.hi-i)
	p.hi += k
	if hi > p.hi {
		x.clearSlots(p, p.hi, hi)
	}
	return i
}

// cut drops slot i of p, moving the fewer of the slots before and after
// it towards it. An empty window goes back to the start of the page.
func (x *Index) cut(p *page, i int) {
	if i-p.lo < p.hi-1-i {
		p.touch(i) // the first slot leaving keeps the suffix
		x.move(p, p.lo+1, p.lo, i-p.lo)
		x.clearSlots(p, p.lo, p.lo+1)
		p.lo++
	} else {
		x.move(p, i, i+1, p.hi-1-i)
		x.clearSlots(p, p.hi-1, p.hi)
		p.hi--
		p.sfx = false
	}
	if p.lo == p.hi {
		p.lo, p.hi, p.sfx = 0, 0, false
	}
}

// move copies k slots of p from si to di (the ranges may overlap).
func (x *Index) move(p *page, di, si, k int) {
	if k == 0 {
		return
	}
	copy(p.k[di:di+k], p.k[si:si+k])
	for t := range x.width {
		copy(p.max[t][di:di+k], p.max[t][si:si+k])
	}
	if !p.leaf {
		copy(p.kid[di:di+k], p.kid[si:si+k])
		for j := di; j < di+k; j++ {
			p.kid[j].at = j
		}
	}
}

// copySlots copies k slots of src from si to dst at di, re-parenting what
// they hold.
func (x *Index) copySlots(dst *page, di int, src *page, si, k int) {
	dst.sfx = false
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

// rowMax returns the greatest of r, which is not empty, with two chains of
// comparisons in flight.
func rowMax(r []int64) int64 {
	a, b := r[0], r[len(r)-1]
	for i := 1; i+1 < len(r); i += 2 {
		a, b = max(a, r[i]), max(b, r[i+1])
	}
	return max(a, b)
}
