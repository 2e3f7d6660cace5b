package usage

import "maps"

// The waiting applications: those with asks but no allocation yet. Such
// an application is not running, holds no usage and counts against no
// limit, but its user's view lists it with the group it would be tracked
// against (reference §4: the user tracker links the group at the first
// headroom check, before anything is allocated).

// Pending records that an application of user, to be tracked against
// group ("" for none), has asks waiting and nothing allocated. A running
// application is not affected; calling it again updates the group. It
// ends when the application first allocates or is removed (RemoveApp).
func (m *Manager) Pending(user, group, appID string) {
	if m == nil || user == "" || appID == "" || m.running(appID) != nil {
		return
	}
	if u, ok := m.waiting[appID]; ok && u == user && m.waitingBy[user][appID] == group {
		return // the common case: another ask of a waiting application
	}
	m.unwait(appID)
	if m.waiting == nil {
		m.waiting = map[string]string{}
		m.waitingBy = map[string]map[string]string{}
	}
	m.waiting[appID] = user
	apps := m.waitingBy[user]
	if apps == nil {
		apps = map[string]string{}
		m.waitingBy[user] = apps
	}
	apps[appID] = group
}

// unwait forgets a waiting application; it reports whether it was one.
func (m *Manager) unwait(appID string) bool {
	user, ok := m.waiting[appID]
	if !ok {
		return false
	}
	delete(m.waiting, appID)
	apps := m.waitingBy[user]
	delete(apps, appID)
	if len(apps) == 0 {
		delete(m.waitingBy, user)
	}
	return true
}

// waitingUsers returns the users with a waiting application and no
// running one.
func (m *Manager) waitingUsers() []string {
	var out []string
	for u := range m.waitingBy {
		if m.users[u] == nil {
			out = append(out, u)
		}
	}
	return out
}

// waitingDAO is the view of a user with only waiting applications: the
// groups they are linked to and an empty root.
func (m *Manager) waitingDAO(user string) UserDAO {
	return UserDAO{UserName: user, Groups: maps.Clone(m.waitingBy[user]), Queues: QueueUsageDAO{
		QueuePath: rootPath, ResourceUsage: map[string]int64{}, RunningApplications: []string{}, Children: []QueueUsageDAO{},
	}}
}
