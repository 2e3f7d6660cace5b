package app

// classHeap orders an application's pending classes by their head ask:
// priority descending, then creation time, then arrival (reference §2.5).
type classHeap []*class

func classLess(a, b *class) bool {
	if a.key.priority != b.key.priority {
		return a.key.priority > b.key.priority
	}
	return askBefore(a.first(), b.first())
}

func (h *classHeap) push(c *class) {
	c.index = len(*h)
	*h = append(*h, c)
	h.up(c.index)
}

func (h *classHeap) remove(c *class) {
	i := c.index
	if i < 0 {
		return
	}
	last := len(*h) - 1
	if i != last {
		h.swap(i, last)
	}
	(*h)[last] = nil
	*h = (*h)[:last]
	c.index = -1
	if i != last {
		h.fix(i)
	}
}

func (h classHeap) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h classHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h classHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !classLess(h[i], h[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h classHeap) down(i int) bool {
	start := i
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && classLess(h[r], h[l]) {
			m = r
		}
		if !classLess(h[m], h[i]) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}
