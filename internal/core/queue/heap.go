package queue

import (
	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
)

// queueHeap orders the children of a parent that have something pending:
// with application.sort.priority enabled, higher priority first, then
// lower fair share; disabled, fair share first and priority as tie-breaker
// (reference §2.3). Further ties: more pending first, then name.
type queueHeap struct {
	q []*Queue
	// byPriority is the parent's application.sort.priority.
	byPriority bool
}

func (h *queueHeap) less(a, b *Queue) bool {
	if h.byPriority && a.prio != b.prio {
		return a.prio > b.prio
	}
	if a.share != b.share {
		return a.share < b.share
	}
	if !h.byPriority && a.prio != b.prio {
		return a.prio > b.prio
	}
	// larger pending first: compare the dominant pending component sums
	if a.pendW != b.pendW {
		return a.pendW > b.pendW
	}
	return a.rank < b.rank // by name
}

// pendingWeight is the sum of q's pending components (kept in pendW).
func pendingWeight(q *Queue) int64 {
	var s int64
	for _, v := range q.Pending {
		s += v
	}
	return s
}

func (h *queueHeap) swap(i, j int) {
	h.q[i], h.q[j] = h.q[j], h.q[i]
	h.q[i].index = i
	h.q[j].index = j
}

func (h *queueHeap) push(q *Queue) {
	q.index = len(h.q)
	h.q = append(h.q, q)
	h.up(q.index)
}

func (h *queueHeap) remove(q *Queue) {
	i := q.index
	if i < 0 {
		return
	}
	last := len(h.q) - 1
	if i != last {
		h.swap(i, last)
	}
	h.q[last] = nil
	h.q = h.q[:last]
	q.index = -1
	if i != last {
		h.fix(i)
	}
}

func (h *queueHeap) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h *queueHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.q[i], h.q[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *queueHeap) down(i int) bool {
	start := i
	for {
		l := 2*i + 1
		if l >= len(h.q) {
			break
		}
		m := l
		if r := l + 1; r < len(h.q) && h.less(h.q[r], h.q[l]) {
			m = r
		}
		if !h.less(h.q[m], h.q[i]) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}

// appHeap orders a leaf's applications that have something pending by the
// leaf's sort policy (reference §2.4): fifo by submission time, fair by the
// app's share of the leaf's guaranteed (or fair max); with priority enabled
// the app's priority comes first, otherwise it only breaks ties of the
// policy's own order (share, or submission time). Final tie: ID.
type appHeap struct {
	a          []*app.App
	fair       bool
	byPriority bool
}

func (h *appHeap) less(a, b *app.App) bool {
	// the keys placeApp recorded: the heap is ordered by them whatever
	// changed on the app since
	pa, pb := a.OrderedPrio, b.OrderedPrio
	if h.byPriority && pa != pb {
		return pa > pb
	}
	if h.fair && a.SortShare != b.SortShare {
		return a.SortShare < b.SortShare
	}
	submitted := a.OrderedSec != b.OrderedSec || a.OrderedNsec != b.OrderedNsec
	if !h.fair && !h.byPriority && submitted {
		return earlier(a, b) // fifo ignores priority
	}
	if !h.byPriority && pa != pb {
		return pa > pb
	}
	if submitted {
		return earlier(a, b)
	}
	if a.IDKey != b.IDKey {
		return a.IDKey[0] < b.IDKey[0] || (a.IDKey[0] == b.IDKey[0] && a.IDKey[1] < b.IDKey[1])
	}
	return a.ID < b.ID
}

// earlier reports whether a was submitted before b, as the ordering last
// placed them.
func earlier(a, b *app.App) bool {
	return a.OrderedSec < b.OrderedSec || (a.OrderedSec == b.OrderedSec && a.OrderedNsec < b.OrderedNsec)
}

func (h *appHeap) configure(p config.Properties) {
	h.fair = p.SortPolicy == config.SortFair
	h.byPriority = p.SortPriority
}

func (h *appHeap) swap(i, j int) {
	h.a[i], h.a[j] = h.a[j], h.a[i]
	h.a[i].QueueIndex = i
	h.a[j].QueueIndex = j
}

func (h *appHeap) push(a *app.App) {
	a.QueueIndex = len(h.a)
	h.a = append(h.a, a)
	h.up(a.QueueIndex)
}

func (h *appHeap) remove(a *app.App) {
	i := a.QueueIndex
	if i < 0 {
		return
	}
	last := len(h.a) - 1
	x := h.a[last]
	h.a[last] = nil
	h.a = h.a[:last]
	a.QueueIndex = -1
	if i == last {
		return
	}
	if i > 0 && h.less(x, h.a[(i-1)/2]) {
		h.a[i], x.QueueIndex = x, i
		h.up(i)
		return
	}
	// the last application usually belongs near the bottom: move the hole
	// down along the smaller children (one comparison a level, where
	// sifting x down takes two), then let x climb from there
	for {
		l := 2*i + 1
		if l >= len(h.a) {
			break
		}
		m := l
		if r := l + 1; r < len(h.a) && h.less(h.a[r], h.a[l]) {
			m = r
		}
		h.a[i], h.a[m].QueueIndex = h.a[m], i
		i = m
	}
	h.a[i], x.QueueIndex = x, i
	h.up(i)
}

func (h *appHeap) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h *appHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.a[i], h.a[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *appHeap) down(i int) bool {
	start := i
	for {
		l := 2*i + 1
		if l >= len(h.a) {
			break
		}
		m := l
		if r := l + 1; r < len(h.a) && h.less(h.a[r], h.a[l]) {
			m = r
		}
		if !h.less(h.a[m], h.a[i]) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}
