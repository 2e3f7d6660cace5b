package usage

import "github.com/paddock-sched/paddock/internal/resource"

// bound is one resource limit a running application's allocations must
// stay within: a user's or group's maxresources on one queue of its path,
// with the tracker node whose usage that limit caps.
type bound struct {
	lim *limit
	n   *node
}

// bind recomputes a's bounds from the current limits, in the order and with
// the precedence Headroom applies them: for every limited level from the
// leaf up, the user's limit and, unless a limit names the user there, the
// group's limit. It runs when the application starts and after every
// Configure, so Allows need not look anything up.
func (m *Manager) bind(a *app) {
	a.bounds = a.bounds[:0]
	i := 0
	for l := a.leaf; l != nil; l, i = l.parent, i+1 {
		if l.limits == nil {
			continue
		}
		ul, named := l.limits.user(a.user)
		if ul != nil && !ul.max.IsUnlimited() {
			a.bounds = append(a.bounds, bound{ul, a.userPath[i]})
		}
		if named || a.group == "" {
			continue
		}
		if gl := l.limits.group(a.group); gl != nil && !gl.max.IsUnlimited() {
			a.bounds = append(a.bounds, bound{gl, a.groupPath[i]})
		}
	}
}

// rebind refreshes the bounds of every running application.
func (m *Manager) rebind() {
	for _, a := range m.apps {
		m.bind(a)
	}
}

// Allows reports whether res may be allocated to the application now: the
// same answer as Headroom(user, group, queuePath).Allows(res). For a
// running application it walks the bounds cached at its start, with no
// lookup but the application's; this is the check on the scheduling path.
// It does not allocate.
func (m *Manager) Allows(user, group, queuePath, appID string, res resource.Vector) bool {
	return m.AllowsAs(nil, user, group, queuePath, appID, &res)
}

// AllowsAs is Allows for an application whose entry the caller kept (see
// AllocateAs) and a vector it lends.
func (m *Manager) AllowsAs(e *Entry, user, group, queuePath, appID string, res *resource.Vector) bool {
	if m == nil {
		return true
	}
	if a := m.runningAs(e, appID); a != nil && a.check(user, group, queuePath) == nil {
		if len(a.bounds) == 0 {
			return true
		}
		mask := res.Support()
		for _, b := range a.bounds {
			if !b.lim.max.AllowsAddOn(&b.n.usage, res, mask) {
				return false
			}
		}
		return true
	}
	return m.Headroom(user, group, queuePath).Allows(*res)
}
