package usage

import (
	"fmt"

	"github.com/paddock-sched/paddock/internal/resource"
)

// node is a tracker's usage on one queue level, its descendants included.
type node struct {
	usage   resource.Vector
	running int // running applications at or below this level
}

// tracker holds one user's or one group's usage per queue level.
type tracker struct {
	name  string
	nodes map[*level]*node
	apps  map[string]*app
}

// usageAt and runningAt read a tracker's level; a missing tracker or level
// holds nothing.
func (t *tracker) usageAt(l *level) resource.Vector {
	if t != nil {
		if n := t.nodes[l]; n != nil {
			return n.usage
		}
	}
	return zero
}

func (t *tracker) runningAt(l *level) int {
	if t != nil {
		if n := t.nodes[l]; n != nil {
			return n.running
		}
	}
	return 0
}

// app is one running application: tracked from its first allocation until
// it is done or removed.
type app struct {
	id    string
	user  string
	group string // "" when not tracked against a group
	leaf  *level
	usage resource.Vector
	// The tracker nodes of the app's path, leaf first. They cannot go away
	// while the app runs, since the app counts as running in each.
	userPath, groupPath []*node
	// bounds are the limits on the app's path, for Allows (see bind).
	bounds []bound
	// stopped is set when the app stops running: an Entry kept from
	// Pending then no longer Runs (a later start makes a new entry).
	stopped bool
}

// Allocate adds res to the usage of the user and, when group is not empty,
// of the group, on every level of queuePath. The application becomes
// running on its first allocation (which may be zero) and is tracked
// against group, and in queuePath, until it is done: later calls for it
// must name the same user, group and queue. The engine chooses group with
// SelectGroup once per application. Bad input returns an error and changes
// nothing.
func (m *Manager) Allocate(user, group, queuePath, appID string, res resource.Vector) error {
	_, err := m.AllocateAs(nil, user, group, queuePath, appID, res)
	return err
}

// AllocateAs is Allocate for an application whose entry the caller kept (e,
// from Pending or an earlier AllocateAs; nil for none): while e runs as
// appID it is used without a look-up by ID. It returns the application's
// running entry, to keep; e itself on an error.
func (m *Manager) AllocateAs(e *Entry, user, group, queuePath, appID string, res resource.Vector) (*Entry, error) {
	return m.AllocateOn(e, user, group, queuePath, appID, &res, res.Support())
}

// AllocateOn is AllocateAs for a vector the caller lends, whose support it
// has: mask, which must be res.Support() (the checks and sums need no
// other types). The decision path computes it once for all its steps.
func (m *Manager) AllocateOn(e *Entry, user, group, queuePath, appID string, res *resource.Vector, mask resource.Mask) (*Entry, error) {
	if m == nil {
		return nil, nil
	}
	if res.NegativeOn(mask) {
		return e, fmt.Errorf("application %s: cannot track a negative allocation %s", appID, m.reg.Format(*res))
	}
	a := m.runningAs(e, appID)
	if a == nil {
		// the IDs of a running application were checked at its start,
		// and check compares the call's with them
		if err := checkIDs(user, queuePath, appID); err != nil {
			return e, err
		}
	}
	if a != nil {
		if err := a.check(user, group, queuePath); err != nil {
			return e, err
		}
		if !fitsSum(a.userPath, res, mask) || !fitsSum(a.groupPath, res, mask) {
			return e, fmt.Errorf("application %s: allocation %s overflows the tracked usage", appID, m.reg.Format(*res))
		}
	} else {
		ut, gt := m.users[user], m.groups[group]
		if _, ok := res.AddChecked(ut.usageAt(m.levels[rootPath])); !ok {
			return e, fmt.Errorf("application %s: allocation %s overflows the usage of user %s", appID, m.reg.Format(*res), user)
		}
		if group != "" {
			if _, ok := res.AddChecked(gt.usageAt(m.levels[rootPath])); !ok {
				return e, fmt.Errorf("application %s: allocation %s overflows the usage of group %s", appID, m.reg.Format(*res), group)
			}
		}
		a = m.start(user, group, queuePath, appID)
	}
	a.usage.IncOn(res, mask)
	for _, n := range a.userPath {
		n.usage.IncOn(res, mask)
	}
	for _, n := range a.groupPath {
		n.usage.IncOn(res, mask)
	}
	if mask != 0 {
		m.emit(UserResource, Add, user, queuePath, res)
		if group != "" {
			m.emit(GroupResource, Add, group, queuePath, res)
		}
	}
	return a, nil
}

// rootPath is the root queue, whose level holds a tracker's total usage.
const rootPath = "root"

// fitsSum reports whether res can be added to the root node of path
// without overflow.
func fitsSum(path []*node, res *resource.Vector, m resource.Mask) bool {
	if len(path) == 0 {
		return true
	}
	return path[len(path)-1].usage.AddsOn(res, m)
}

// start registers a new running application.
func (m *Manager) start(user, group, queuePath, appID string) *app {
	leaf := m.ensureLevel(queuePath)
	a := &app{id: appID, user: user, group: group, leaf: leaf}
	a.userPath = m.join(m.users, user, a)
	if group != "" {
		a.groupPath = m.join(m.groups, group, a)
		m.emit(AppLink, Set, group, appID, nil)
	}
	m.bind(a)
	m.apps[appID] = a
	m.unwait(appID)
	return a
}

// join adds a to the tracker called name in trackers, creating the tracker
// and its nodes as needed, and returns the nodes of a's path, leaf first.
func (m *Manager) join(trackers map[string]*tracker, name string, a *app) []*node {
	t := trackers[name]
	if t == nil {
		t = &tracker{name: name, nodes: map[*level]*node{}, apps: map[string]*app{}}
		trackers[name] = t
	}
	t.apps[a.id] = a
	path := make([]*node, 0, depth(a.leaf.path))
	for l := a.leaf; l != nil; l = l.parent {
		n := t.nodes[l]
		if n == nil {
			n = &node{}
			t.nodes[l] = n
			l.nodes++
		}
		n.running++
		path = append(path, n)
	}
	return path
}

// Release subtracts res from the usage of the application's user and group
// on every level of its queue. When appDone is set the application stops
// running: it leaves the running sets and whatever it still holds is
// released with it; trackers and levels left empty are removed. Releasing
// more than the application holds, or for an application that is not
// tracked, returns an error and changes nothing.
func (m *Manager) Release(user, group, queuePath, appID string, res resource.Vector, appDone bool) error {
	if m == nil {
		return nil
	}
	a := m.running(appID)
	if a == nil {
		if err := checkIDs(user, queuePath, appID); err != nil {
			return err
		}
		return fmt.Errorf("application %s of user %s is not tracked in queue %s", appID, user, queuePath)
	}
	if err := a.check(user, group, queuePath); err != nil {
		return err
	}
	if res.HasNegative() {
		return fmt.Errorf("application %s: cannot release a negative amount %s", appID, m.reg.Format(res))
	}
	if !res.Fits(a.usage) {
		return fmt.Errorf("application %s: cannot release %s, it holds %s", appID, m.reg.Format(res), m.reg.Format(a.usage))
	}
	if appDone {
		m.stop(a)
		return nil
	}
	m.sub(a, res)
	return nil
}

// RemoveApp stops tracking an application, releasing everything it still
// holds, as Release with appDone does, or forgets it as waiting (Pending).
// It reports whether the application was tracked or waiting.
func (m *Manager) RemoveApp(appID string) bool {
	if m == nil {
		return false
	}
	wasWaiting := m.unwait(appID)
	a := m.running(appID)
	if a == nil {
		return wasWaiting
	}
	m.stop(a)
	return true
}

// sub subtracts res (at most a's usage) from a and its path.
func (m *Manager) sub(a *app, res resource.Vector) {
	mask := res.Support()
	a.usage.DecOn(&res, mask)
	for _, n := range a.userPath {
		n.usage.DecOn(&res, mask)
	}
	for _, n := range a.groupPath {
		n.usage.DecOn(&res, mask)
	}
	if mask != 0 {
		m.emit(UserResource, Remove, a.user, a.leaf.path, &res)
		if a.group != "" {
			m.emit(GroupResource, Remove, a.group, a.leaf.path, &res)
		}
	}
}

// stop releases all of a and removes it from its trackers.
func (m *Manager) stop(a *app) {
	m.sub(a, a.usage)
	m.leave(m.users, a.user, a, a.userPath)
	if a.group != "" {
		m.leave(m.groups, a.group, a, a.groupPath)
		m.emit(AppLink, Remove, a.group, a.id, nil)
	}
	delete(m.apps, a.id)
	a.stopped = true
	if m.last == a {
		m.last = nil
	}
	m.releaseLevel(a.leaf)
}

// leave removes a from a tracker; nodes no application runs in any more
// (and so hold no usage) are dropped, and the tracker with its last app.
func (m *Manager) leave(trackers map[string]*tracker, name string, a *app, path []*node) {
	t := trackers[name]
	delete(t.apps, a.id)
	l := a.leaf
	for _, n := range path {
		n.running--
		if n.running == 0 {
			delete(t.nodes, l)
			l.nodes--
		}
		l = l.parent
	}
	if len(t.apps) == 0 {
		delete(trackers, name)
	}
}

func (a *app) check(user, group, queuePath string) error {
	switch {
	case !same(a.user, user):
		return fmt.Errorf("application %s is tracked for user %s, not %s", a.id, a.user, user)
	case !same(a.group, group):
		return fmt.Errorf("application %s of user %s is tracked against group %q, not %q", a.id, user, a.group, group)
	case !same(a.leaf.path, queuePath):
		return fmt.Errorf("application %s of user %s is tracked in queue %s, not %s", a.id, user, a.leaf.path, queuePath)
	}
	return nil
}

func checkIDs(user, queuePath, appID string) error {
	switch {
	case user == "":
		return fmt.Errorf("application %q: user name is empty", appID)
	case appID == "":
		return fmt.Errorf("user %s: application ID is empty", user)
	case !checkPath(queuePath):
		return fmt.Errorf("application %s: invalid queue path %q", appID, queuePath)
	}
	return nil
}
