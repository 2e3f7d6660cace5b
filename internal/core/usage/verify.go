package usage

import (
	"fmt"
	"slices"

	"github.com/paddock-sched/paddock/internal/resource"
)

// Verify recomputes every tracker from the running applications and checks
// it against the live state: usage and running counts per level, no empty
// tracker or level left behind, level bookkeeping. It returns the first
// broken invariant. Tests and the simulator run it.
func (m *Manager) Verify() error {
	if m == nil {
		return nil
	}
	for id, a := range m.apps {
		if a.id != id {
			return fmt.Errorf("application %s is indexed as %s", a.id, id)
		}
		if a.usage.HasNegative() {
			return fmt.Errorf("application %s holds a negative amount %s", id, m.reg.Format(a.usage))
		}
		if m.levels[a.leaf.path] != a.leaf {
			return fmt.Errorf("application %s runs in queue %s, which is not a known level", id, a.leaf.path)
		}
		if ut := m.users[a.user]; ut == nil || ut.apps[id] != a {
			return fmt.Errorf("application %s is missing from user %s", id, a.user)
		}
		if a.group != "" {
			if gt := m.groups[a.group]; gt == nil || gt.apps[id] != a {
				return fmt.Errorf("application %s is missing from group %s", id, a.group)
			}
		}
	}
	n := 0
	for user, apps := range m.waitingBy {
		for id := range apps {
			if m.apps[id] != nil {
				return fmt.Errorf("application %s is both running and waiting", id)
			}
			if m.waiting[id] != user {
				return fmt.Errorf("waiting application %s of user %s is indexed for %q", id, user, m.waiting[id])
			}
			n++
		}
	}
	if n != len(m.waiting) {
		return fmt.Errorf("%d waiting applications, %d indexed by user", len(m.waiting), n)
	}
	nodes := map[*level]int{}
	if err := m.verifyTrackers("user", m.users, func(a *app) ([]*node, bool) { return a.userPath, true }, nodes); err != nil {
		return err
	}
	if err := m.verifyTrackers("group", m.groups, func(a *app) ([]*node, bool) { return a.groupPath, a.group != "" }, nodes); err != nil {
		return err
	}
	return m.verifyLevels(nodes)
}

func (m *Manager) verifyTrackers(kind string, trackers map[string]*tracker, pathOf func(*app) ([]*node, bool), nodes map[*level]int) error {
	type sum struct {
		usage   resource.Vector
		running int
	}
	for name, t := range trackers {
		if t.name != name {
			return fmt.Errorf("%s %s is indexed as %s", kind, t.name, name)
		}
		if len(t.apps) == 0 {
			return fmt.Errorf("%s %s has no running application but is still tracked", kind, name)
		}
		want := map[*level]*sum{}
		for id, a := range t.apps {
			if m.apps[id] != a {
				return fmt.Errorf("%s %s tracks application %s, which is not running", kind, name, id)
			}
			path, ok := pathOf(a)
			if !ok {
				return fmt.Errorf("%s %s tracks application %s, which has no group", kind, name, id)
			}
			i := 0
			for l := a.leaf; l != nil; l, i = l.parent, i+1 {
				s := want[l]
				if s == nil {
					s = &sum{}
					want[l] = s
				}
				s.usage.Inc(a.usage)
				s.running++
				if i >= len(path) || t.nodes[l] != path[i] {
					return fmt.Errorf("%s %s: application %s does not point at the node of queue %s", kind, name, id, l.path)
				}
			}
			if i != len(path) {
				return fmt.Errorf("%s %s: application %s has %d path nodes for %d levels", kind, name, id, len(path), i)
			}
		}
		if len(want) != len(t.nodes) {
			return fmt.Errorf("%s %s has %d queue nodes, its applications need %d", kind, name, len(t.nodes), len(want))
		}
		for l, n := range t.nodes {
			s := want[l]
			switch {
			case m.levels[l.path] != l:
				return fmt.Errorf("%s %s has a node for queue %s, which is not a known level", kind, name, l.path)
			case s == nil:
				return fmt.Errorf("%s %s keeps queue %s without a running application", kind, name, l.path)
			case s.usage != n.usage:
				return fmt.Errorf("%s %s in queue %s: usage %s, recomputed %s", kind, name, l.path, m.reg.Format(n.usage), m.reg.Format(s.usage))
			case s.running != n.running:
				return fmt.Errorf("%s %s in queue %s: %d running applications, recomputed %d", kind, name, l.path, n.running, s.running)
			}
			nodes[l]++
		}
	}
	return nil
}

func (m *Manager) verifyLevels(nodes map[*level]int) error {
	children := map[*level]int{}
	for p, l := range m.levels {
		if l.path != p {
			return fmt.Errorf("level %s is indexed as %s", l.path, p)
		}
		if l.parent != nil {
			if m.levels[l.parent.path] != l.parent {
				return fmt.Errorf("level %s has a parent that is not known", p)
			}
			children[l.parent]++
		} else if p != rootPath {
			return fmt.Errorf("level %s has no parent", p)
		}
	}
	for p, l := range m.levels {
		switch {
		case l.nodes != nodes[l]:
			return fmt.Errorf("level %s counts %d tracker nodes, there are %d", p, l.nodes, nodes[l])
		case l.children != children[l]:
			return fmt.Errorf("level %s counts %d children, there are %d", p, l.children, children[l])
		case l.unused():
			return fmt.Errorf("level %s is unused but still known", p)
		}
		var want []*level
		for x := l; x != nil; x = x.parent {
			if x.limits != nil {
				want = append(want, x)
			}
		}
		if !slices.Equal(want, l.limited) {
			return fmt.Errorf("level %s has a stale list of limited ancestors", p)
		}
	}
	return nil
}
