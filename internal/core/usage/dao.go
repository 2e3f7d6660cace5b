package usage

import (
	"cmp"
	"slices"
)

// QueueUsageDAO is a tracker's usage on one queue and, in Children, on the
// queues below it that hold usage (reference §5 usage endpoints).
type QueueUsageDAO struct {
	QueuePath           string           `json:"queuePath"`
	ResourceUsage       map[string]int64 `json:"resourceUsage"`
	RunningApplications []string         `json:"runningApplications"`
	// MaxResources and MaxApplications are the limit that applies to the
	// tracker on this queue, omitted when there is none.
	MaxResources    map[string]int64 `json:"maxResources,omitempty"`
	MaxApplications uint64           `json:"maxApplications,omitempty"`
	Children        []QueueUsageDAO  `json:"children"`
}

// UserDAO is one user's usage.
type UserDAO struct {
	UserName string `json:"userName"`
	// Groups maps each running application, and each application with
	// asks but nothing allocated yet, to the group it is tracked against
	// ("" when none).
	Groups map[string]string `json:"groups"`
	Queues QueueUsageDAO     `json:"queues"`
}

// GroupDAO is one group's usage.
type GroupDAO struct {
	GroupName    string        `json:"groupName"`
	Applications []string      `json:"applications"`
	Queues       QueueUsageDAO `json:"queues"`
}

// Users returns every tracked user sorted by name. The values share
// nothing with the manager and may be handed to other goroutines.
func (m *Manager) Users() []UserDAO {
	if m == nil {
		return nil
	}
	out := make([]UserDAO, 0, len(m.users))
	for _, name := range sortedNames(m.users) {
		out = append(out, m.userDAO(m.users[name]))
	}
	if len(m.waiting) == 0 {
		return out
	}
	for _, name := range m.waitingUsers() {
		out = append(out, m.waitingDAO(name))
	}
	slices.SortFunc(out, func(a, b UserDAO) int { return cmp.Compare(a.UserName, b.UserName) })
	return out
}

// User returns one tracked user; false if the user has no running or
// waiting application.
func (m *Manager) User(name string) (UserDAO, bool) {
	if m == nil {
		return UserDAO{}, false
	}
	t := m.users[name]
	if t == nil {
		if len(m.waitingBy[name]) > 0 {
			return m.waitingDAO(name), true
		}
		return UserDAO{}, false
	}
	return m.userDAO(t), true
}

// Groups returns every tracked group sorted by name, as deep copies.
func (m *Manager) Groups() []GroupDAO {
	if m == nil {
		return nil
	}
	out := make([]GroupDAO, 0, len(m.groups))
	for _, name := range sortedNames(m.groups) {
		out = append(out, m.groupDAO(m.groups[name]))
	}
	return out
}

// Group returns one tracked group; false if no running application is
// tracked against it.
func (m *Manager) Group(name string) (GroupDAO, bool) {
	if m == nil {
		return GroupDAO{}, false
	}
	t := m.groups[name]
	if t == nil {
		return GroupDAO{}, false
	}
	return m.groupDAO(t), true
}

func (m *Manager) userDAO(t *tracker) UserDAO {
	groups := make(map[string]string, len(t.apps))
	for id, a := range t.apps {
		groups[id] = a.group
	}
	for id, g := range m.waitingBy[t.name] {
		groups[id] = g
	}
	lim := func(l *level) *limit {
		if l.limits == nil {
			return nil
		}
		u, _ := l.limits.user(t.name)
		return u
	}
	return UserDAO{UserName: t.name, Groups: groups, Queues: m.tree(t, lim)}
}

func (m *Manager) groupDAO(t *tracker) GroupDAO {
	apps := make([]string, 0, len(t.apps))
	for id := range t.apps {
		apps = append(apps, id)
	}
	slices.Sort(apps)
	lim := func(l *level) *limit {
		if l.limits == nil {
			return nil
		}
		return l.limits.group(t.name)
	}
	return GroupDAO{GroupName: t.name, Applications: apps, Queues: m.tree(t, lim)}
}

// tree builds the queue tree of a tracker from its nodes, with the limit
// lim reports for each level.
func (m *Manager) tree(t *tracker, lim func(*level) *limit) QueueUsageDAO {
	type draft struct {
		dao      QueueUsageDAO
		children []*draft
	}
	drafts := make(map[*level]*draft, len(t.nodes))
	for l, n := range t.nodes {
		d := &draft{dao: QueueUsageDAO{
			QueuePath:           l.path,
			ResourceUsage:       m.reg.ToMap(n.usage),
			RunningApplications: make([]string, 0, n.running),
			Children:            []QueueUsageDAO{},
		}}
		if x := lim(l); x != nil {
			if !x.max.IsUnlimited() {
				d.dao.MaxResources = m.reg.QuotaToMap(x.max)
			}
			d.dao.MaxApplications = x.maxApps
		}
		drafts[l] = d
	}
	var root *draft
	for l, d := range drafts {
		if l.parent == nil {
			root = d
			continue
		}
		p := drafts[l.parent]
		p.children = append(p.children, d)
	}
	for _, a := range t.apps {
		for l := a.leaf; l != nil; l = l.parent {
			d := drafts[l]
			d.dao.RunningApplications = append(d.dao.RunningApplications, a.id)
		}
	}
	var finish func(d *draft) QueueUsageDAO
	finish = func(d *draft) QueueUsageDAO {
		slices.Sort(d.dao.RunningApplications)
		slices.SortFunc(d.children, func(a, b *draft) int { return cmp.Compare(a.dao.QueuePath, b.dao.QueuePath) })
		for _, c := range d.children {
			d.dao.Children = append(d.dao.Children, finish(c))
		}
		return d.dao
	}
	if root == nil {
		return QueueUsageDAO{}
	}
	return finish(root)
}

func sortedNames(m map[string]*tracker) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
