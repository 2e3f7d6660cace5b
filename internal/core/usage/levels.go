package usage

import (
	"slices"
	"strings"

	"github.com/paddock-sched/paddock/internal/resource"
)

// level is one queue path the manager knows: a queue with configured
// limits, an ancestor of one, or a queue some tracker has usage in. Levels
// are shared by all trackers of the manager; a level nothing needs any more
// is dropped.
type level struct {
	path   string
	parent *level
	limits *queueLimits // nil: no limits configured here
	// limited lists this level (when it has limits) and its ancestors with
	// limits, nearest first: the only levels enforcement has to visit.
	limited  []*level
	nodes    int // tracker nodes at this level
	children int // child levels
}

func (l *level) unused() bool { return l.nodes == 0 && l.children == 0 && l.limits == nil }

// known returns the deepest known level that is path or one of its
// ancestors, nil if there is none. It does not allocate: ancestors are
// looked up by slicing the path at its dots.
func (m *Manager) known(path string) *level {
	for {
		if lv, ok := m.levels[path]; ok {
			return lv
		}
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			return nil
		}
		path = path[:i]
	}
}

// ensureLevel returns the level of path, creating it and its missing
// ancestors. path must be valid (see checkPath).
func (m *Manager) ensureLevel(path string) *level {
	if lv, ok := m.levels[path]; ok {
		return lv
	}
	lv := &level{path: path}
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		lv.parent = m.ensureLevel(path[:i])
		lv.parent.children++
		lv.limited = lv.parent.limited // shared, never modified in place
	}
	m.levels[path] = lv
	return lv
}

// releaseLevel drops lv and then its ancestors for as long as they are
// unused.
func (m *Manager) releaseLevel(lv *level) {
	for lv != nil && lv.unused() && m.levels[lv.path] == lv {
		delete(m.levels, lv.path)
		if lv.parent != nil {
			lv.parent.children--
		}
		lv = lv.parent
	}
}

// relink recomputes every level's limited list after the limits changed.
func (m *Manager) relink() {
	all := make([]*level, 0, len(m.levels))
	for _, lv := range m.levels {
		all = append(all, lv)
	}
	// A parent's path is shorter than its children's: sorting by length
	// visits parents first.
	slices.SortFunc(all, func(a, b *level) int { return len(a.path) - len(b.path) })
	for _, lv := range all {
		var base []*level
		if lv.parent != nil {
			base = lv.parent.limited
		}
		if lv.limits == nil {
			lv.limited = base
			continue
		}
		lv.limited = append(append(make([]*level, 0, len(base)+1), lv), base...)
	}
}

// checkPath reports whether p is a queue path: "root" or "root." followed
// by non-empty names separated by single dots.
func checkPath(p string) bool {
	const root = "root"
	if !strings.HasPrefix(p, root) {
		return false
	}
	rest := p[len(root):]
	if rest == "" {
		return true
	}
	if rest[0] != '.' || rest[len(rest)-1] == '.' {
		return false
	}
	return !strings.Contains(rest, "..")
}

// depth is the number of levels in a valid path.
func depth(p string) int { return strings.Count(p, ".") + 1 }

var zero resource.Vector
