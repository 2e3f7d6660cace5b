package usage

import (
	"slices"
	"unsafe"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Manager tracks the usage of one partition's users and groups and
// enforces their limits. A nil *Manager tracks nothing and limits nothing.
type Manager struct {
	reg    *resource.Registry
	levels map[string]*level
	users  map[string]*tracker
	groups map[string]*tracker
	apps   map[string]*app // every running application by ID
	// waiting maps the applications with asks and nothing allocated yet
	// (pending.go) to their user; waitingBy maps a user to those
	// applications and their groups.
	waiting   map[string]string
	waitingBy map[string]map[string]string
	emitFn    func(*Event)
	ev        Event // the event emit passes
	// last is the application found by the latest lookup: the scheduler
	// checks and then allocates for the same application, so most lookups
	// repeat the previous one.
	last *app
}

// running returns the running application with the ID, nil if none.
func (m *Manager) running(appID string) *app {
	if a := m.last; a != nil && a.id == appID {
		return a
	}
	a := m.apps[appID]
	if a != nil {
		m.last = a
	}
	return a
}

// runningAs is running(appID), taking e instead while it is the running
// entry of appID (kept by a caller from Pending or AllocateAs).
func (m *Manager) runningAs(e *Entry, appID string) *app {
	if m.Runs(e) && same(e.id, appID) {
		return e
	}
	return m.running(appID)
}

// same is a == b, without a call where both are the same string, as the
// engine's calls for an application pass its own fields.
func same(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// New returns a manager without limits or usage. Resource names are
// interned in, and usage maps produced through, reg.
func New(reg *resource.Registry) *Manager {
	return &Manager{
		reg:    reg,
		levels: map[string]*level{},
		users:  map[string]*tracker{},
		groups: map[string]*tracker{},
		apps:   map[string]*app{},
	}
}

// CheckConfigure reports whether Configure would accept the queue tree,
// without changing anything but interning its resource names.
func (m *Manager) CheckConfigure(root *config.QueueConfig) error {
	if m == nil {
		return nil
	}
	_, err := m.plan(root)
	return err
}

// Configure replaces all limits by those of the queue tree under root (the
// partition's limits are expected on root, as config.Parse puts them). It
// may be called again at any time: limits that were added, changed or
// removed take effect on live trackers at once, wildcard limits included.
// A limit SET event is emitted for every new or changed limit and a REMOVE
// event for every removed one. On error nothing changes.
func (m *Manager) Configure(root *config.QueueConfig) error {
	if m == nil {
		return nil
	}
	next, err := m.plan(root)
	if err != nil {
		return err
	}
	events := m.limitEvents(next)
	var dropped []*level
	for p, lv := range m.levels {
		if lv.limits != nil && next[p] == nil {
			lv.limits = nil
			if lv.unused() {
				dropped = append(dropped, lv)
			}
		}
	}
	for p, ql := range next {
		m.ensureLevel(p).limits = ql
	}
	for _, lv := range dropped {
		m.releaseLevel(lv)
	}
	m.relink()
	m.unlinkGroups()
	m.rebind()
	for _, e := range events {
		m.emit(e.Type, e.Change, e.ObjectID, e.ReferenceID, &e.Resource)
	}
	return nil
}

// unlinkGroups stops tracking running applications against a group when
// no limit on their queue path applies to that group any more, as the
// reference does on a reload: a group tracker left without applications
// is dropped.
func (m *Manager) unlinkGroups() {
	ids := make([]string, 0, len(m.apps))
	for id, a := range m.apps {
		if a.group != "" && !groupLimited(a.group, a.leaf) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		a := m.apps[id]
		m.leave(m.groups, a.group, a, a.groupPath)
		m.emit(AppLink, Remove, a.group, a.id, nil)
		a.group, a.groupPath = "", nil
	}
}

// groupLimited reports whether a limit on lv or above names group (or is
// the wildcard group limit, for the wildcard group).
func groupLimited(group string, lv *level) bool {
	for _, l := range lv.limited {
		if slices.Contains(l.limits.groupOrder, group) || (group == Wildcard && l.limits.groupAny != nil) {
			return true
		}
	}
	return false
}

// GroupOf returns the group a running application is tracked against ("":
// none) and whether the application is tracked.
func (m *Manager) GroupOf(appID string) (string, bool) {
	if a := m.running(appID); a != nil {
		return a.group, true
	}
	return "", false
}
