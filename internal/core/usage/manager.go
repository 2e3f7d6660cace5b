package usage

import (
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
	emitFn func(Event)
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
	m.rebind()
	for _, e := range events {
		m.emit(e)
	}
	return nil
}
