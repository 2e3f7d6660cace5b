package usage

import (
	"fmt"
	"slices"

	"github.com/paddock-sched/paddock/internal/resource"
)

// SelectGroup chooses the group an application of the user in leafPath is
// tracked against (reference §4): walking from the leaf up to the root, at
// the first queue with group limits, the first named group in configuration
// order that is among groups wins; failing that, the wildcard group if that
// queue has one; failing that the walk continues upwards. It returns "" when
// nothing matches or groups is empty: the application is then not tracked
// against any group. The engine fixes the result for the application's
// lifetime. The user does not influence the choice; it is accepted so the
// call reads like the other checks.
func (m *Manager) SelectGroup(user string, groups []string, leafPath string) string {
	if m == nil {
		return ""
	}
	if len(groups) == 0 {
		return ""
	}
	lv := m.known(leafPath)
	if lv == nil {
		return ""
	}
	for _, l := range lv.limited {
		for _, g := range l.limits.groupOrder {
			if slices.Contains(groups, g) {
				return g
			}
		}
		if l.limits.groupAny != nil {
			return Wildcard
		}
	}
	return ""
}

// Headroom is what the user may still be allocated in queuePath: the
// minimum over the queue and its ancestors of the user's limit minus the
// user's usage and, where the user has no limit of their own on that queue,
// the group's limit minus the group's usage. The user's limit on a queue is
// the one naming the user, else the wildcard user limit (applied to each
// user's own usage). The group's limit is the one naming the group, or the
// wildcard group limit for the wildcard group (against the cumulative usage
// of everyone tracked there). A limit naming the user takes precedence over
// group limits on the same queue (design: user limits always win). Types no
// limit mentions are unlimited. It does not allocate.
func (m *Manager) Headroom(user, group, queuePath string) resource.Quota {
	if m == nil {
		return resource.Quota{}
	}
	var h resource.Quota
	lv := m.known(queuePath)
	if lv == nil || len(lv.limited) == 0 {
		return h
	}
	ut := m.users[user]
	var gt *tracker
	if group != "" {
		gt = m.groups[group]
	}
	for _, l := range lv.limited {
		ul, named := l.limits.user(user)
		if ul != nil && !ul.max.IsUnlimited() {
			h = h.Min(ul.max.Headroom(ut.usageAt(l)))
		}
		if named || group == "" {
			continue
		}
		if gl := l.limits.group(group); gl != nil && !gl.max.IsUnlimited() {
			h = h.Min(gl.max.Headroom(gt.usageAt(l)))
		}
	}
	return h
}

// CanRunApp reports whether the application may start running in
// queuePath under the maxapplications of the user's and the group's limits
// on the queue and every ancestor: running + 1 must not exceed any of
// them, with the same precedence as Headroom. An application that already
// runs is always allowed. When not allowed, reason names the limit.
func (m *Manager) CanRunApp(user, group, queuePath, appID string) (ok bool, reason string) {
	if m == nil {
		return true, ""
	}
	if a := m.running(appID); a != nil && a.user == user {
		return true, ""
	}
	lv := m.known(queuePath)
	if lv == nil {
		return true, ""
	}
	ut := m.users[user]
	var gt *tracker
	if group != "" {
		gt = m.groups[group]
	}
	for _, l := range lv.limited {
		ul, named := l.limits.user(user)
		if ul != nil && ul.maxApps > 0 {
			if n := ut.runningAt(l); uint64(n)+1 > ul.maxApps {
				return false, fmt.Sprintf("user %s has %d running applications in queue %s, the limit is %d", user, n, l.path, ul.maxApps)
			}
		}
		if named || group == "" {
			continue
		}
		if gl := l.limits.group(group); gl != nil && gl.maxApps > 0 {
			if n := gt.runningAt(l); uint64(n)+1 > gl.maxApps {
				return false, fmt.Sprintf("group %s has %d running applications in queue %s, the limit is %d", group, n, l.path, gl.maxApps)
			}
		}
	}
	return true, ""
}
