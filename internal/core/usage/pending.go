package usage

import (
	"fmt"
	"maps"
)

// The waiting applications: those with asks but no allocation yet. Such
// an application is not running, holds no usage and counts against no
// limit, but its user's view lists it with the group it would be tracked
// against (reference §4: the user tracker links the group at the first
// headroom check, before anything is allocated).

// Pending records that an application of user, to be tracked against
// group ("" for none), has asks waiting and nothing allocated. A running
// application is not affected; calling it again updates the group. It
// ends when the application first allocates or is removed (RemoveApp).
// It returns the application's running entry, nil when it does not run.
func (m *Manager) Pending(user, group, appID string) *Entry {
	if m == nil || user == "" || appID == "" {
		return nil
	}
	if a := m.running(appID); a != nil {
		return a
	}
	if u, ok := m.waiting[appID]; ok && u == user && m.waitingBy[user][appID] == group {
		return nil // the common case: another ask of a waiting application
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
	return nil
}

// Entry is a running application's entry, opaque outside the package.
// Pending returns it: a caller that keeps it asks Runs instead of
// calling Pending again, which looks the application up by ID (an
// application whose asks are each placed before the next comes would be
// looked up once per ask).
type Entry = app

// Runs reports whether e, kept from Pending (nil allowed), is still its
// application's running entry: Pending would change nothing.
func (m *Manager) Runs(e *Entry) bool { return e != nil && !e.stopped }

// CheckEntry reports an error when e Runs but is not the running entry of
// appID, for a caller's Verify.
func (m *Manager) CheckEntry(appID string, e *Entry) error {
	if m.Runs(e) && (m == nil || m.apps[appID] != e) {
		return fmt.Errorf("application %s: the entry kept runs but is not the application's", appID)
	}
	return nil
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
