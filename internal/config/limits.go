package config

import (
	"fmt"
	"reflect"
	"regexp"
)

// Limit name patterns (§1.8); "*" is the wildcard.
var (
	limitUserRegexp  = regexp.MustCompile(`^[_a-zA-Z][a-zA-Z0-9:#/_.@-]*[$]?$`)
	limitGroupRegexp = regexp.MustCompile(`^[_a-zA-Z][a-zA-Z0-9:_.-]*$`)
)

// limitBound is the effective limit for one user or group name at a level
// of the hierarchy: the tightest of its own and its ancestors' limits.
type limitBound struct {
	max     Quantities
	maxApps uint64
	from    string
}

func limitsEqual(a, b []Limit) bool { return reflect.DeepEqual(a, b) }

// limits validates q's limit entries and returns the effective user and
// group limits its children must respect.
func (w *walker) limits(q *QueueConfig, isRoot bool, pUsers, pGroups map[string]limitBound) (users, groups map[string]limitBound) {
	if len(q.Limits) == 0 {
		return pUsers, pGroups
	}
	ps, path := w.ps, q.Path
	users, groups = copyBounds(pUsers), copyBounds(pGroups)
	seenUser, seenGroup := map[string]int{}, map[string]int{}
	userWildcard, groupWildcard := -1, -1
	namedGroup := false
	for i := range q.Limits {
		l := &q.Limits[i]
		key := fmt.Sprintf("limits[%d]", i)
		if len(l.Users) == 0 && len(l.Groups) == 0 {
			ps.add(path, key, "a limit must name at least one user or group")
		}
		l.Max = parseQuantities(ps, path, key+".maxresources", l.MaxResources)
		if l.MaxApplications == 0 && len(l.MaxResources) == 0 {
			ps.add(path, key, "a limit must set maxapplications or maxresources")
		}
		if l.Max.allZero() {
			ps.add(path, key+".maxresources", "at least one value must be above 0")
		}
		if q.MaxApplications > 0 && l.MaxApplications > q.MaxApplications {
			ps.add(path, key+".maxapplications", "%d is larger than the queue's maxapplications %d", l.MaxApplications, q.MaxApplications)
		}
		if !isRoot {
			for _, name := range l.Max.exceeding(q.Max) {
				ps.add(path, key+".maxresources."+name, "%s is larger than the queue's max %s",
					FormatQuantity(name, l.Max[name]), FormatQuantity(name, q.Max[name]))
			}
		}
		for j, u := range l.Users {
			k := fmt.Sprintf("%s.users[%d]", key, j)
			if u != wildcard && !limitUserRegexp.MatchString(u) {
				ps.add(path, k, "invalid user name %q", u)
				continue
			}
			if prev, dup := seenUser[u]; dup {
				ps.add(path, k, "user %q already has a limit in limits[%d] of this queue", u, prev)
				continue
			}
			seenUser[u] = i
			if u == wildcard {
				userWildcard = i
			} else if userWildcard >= 0 {
				ps.add(path, k, "named user %q must come before the wildcard user limit in limits[%d]", u, userWildcard)
			}
			w.againstAncestor(path, key, "user", u, l, pUsers, users)
		}
		for j, g := range l.Groups {
			k := fmt.Sprintf("%s.groups[%d]", key, j)
			if g != wildcard && !limitGroupRegexp.MatchString(g) {
				ps.add(path, k, "invalid group name %q", g)
				continue
			}
			if prev, dup := seenGroup[g]; dup {
				ps.add(path, k, "group %q already has a limit in limits[%d] of this queue", g, prev)
				continue
			}
			seenGroup[g] = i
			if g == wildcard {
				groupWildcard = i
			} else {
				namedGroup = true
				if groupWildcard >= 0 {
					ps.add(path, k, "named group %q must come before the wildcard group limit in limits[%d]", g, groupWildcard)
				}
			}
			w.againstAncestor(path, key, "group", g, l, pGroups, groups)
		}
	}
	if groupWildcard >= 0 && !namedGroup {
		ps.add(path, fmt.Sprintf("limits[%d].groups", groupWildcard), "a wildcard group limit needs at least one named group limit on the same queue")
	}
	return users, groups
}

// againstAncestor checks the limit l for one name against the ancestors'
// effective limit for that name (or, for a named entry, the ancestors'
// wildcard) and records the tightened bound in out.
func (w *walker) againstAncestor(path, key, kind, name string, l *Limit, ancestors, out map[string]limitBound) {
	own := limitBound{max: l.Max, maxApps: l.MaxApplications, from: path}
	anc, ok := ancestors[name]
	which := fmt.Sprintf("%s %q", kind, name)
	if !ok && name != wildcard {
		anc, ok = ancestors[wildcard]
		which = fmt.Sprintf("wildcard %s", kind)
	}
	if ok {
		for _, r := range l.Max.exceeding(anc.max) {
			w.ps.add(path, key+".maxresources."+r, "%s %q: %s is larger than the %s limit %s set on %s",
				kind, name, FormatQuantity(r, l.Max[r]), which, FormatQuantity(r, anc.max[r]), anc.from)
		}
		if anc.maxApps > 0 && l.MaxApplications > anc.maxApps {
			w.ps.add(path, key+".maxapplications", "%s %q: %d is larger than the %s limit %d set on %s",
				kind, name, l.MaxApplications, which, anc.maxApps, anc.from)
		}
		own.max = minMerge(anc.max, l.Max)
		if own.maxApps == 0 || (anc.maxApps > 0 && anc.maxApps < own.maxApps) {
			own.maxApps = anc.maxApps
		}
	}
	out[name] = own
}

func copyBounds(m map[string]limitBound) map[string]limitBound {
	out := make(map[string]limitBound, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ValidUserName reports whether name is a valid user name (the reference's
// user regexp): applications of other users are rejected.
func ValidUserName(name string) bool { return limitUserRegexp.MatchString(name) }
