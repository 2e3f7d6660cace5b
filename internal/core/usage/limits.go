package usage

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Wildcard in a limit's users matches every user without a named limit on
// that queue (each user separately); in a limit's groups it is a group of
// its own that every application not matched by a named group is tracked
// against (one cumulative limit).
const Wildcard = "*"

// limit is one user's or group's limit on one queue.
type limit struct {
	max     resource.Quota // unset types unlimited
	maxApps uint64         // 0: unlimited
}

func (l *limit) equal(o *limit) bool { return l.max == o.max && l.maxApps == o.maxApps }

// queueLimits holds the limits configured on one queue.
type queueLimits struct {
	users      map[string]*limit // named users
	userAny    *limit            // wildcard user, nil if none
	groups     map[string]*limit // named groups
	groupOrder []string          // named groups in configuration order
	groupAny   *limit            // wildcard group, nil if none
}

// user returns the limit that applies to the user on this queue and
// whether it is a limit naming the user (not the wildcard).
func (q *queueLimits) user(name string) (l *limit, named bool) {
	if l, ok := q.users[name]; ok {
		return l, true
	}
	return q.userAny, false
}

// group returns the limit of a group tracker on this queue: the named limit
// of that group, or the wildcard limit for the wildcard group.
func (q *queueLimits) group(name string) *limit {
	if name == Wildcard {
		return q.groupAny
	}
	return q.groups[name]
}

// userNames and groupNames list the names with a limit, the wildcard
// included, sorted.
func (q *queueLimits) userNames() []string { return names(q.users, q.userAny) }

func (q *queueLimits) groupNames() []string { return names(q.groups, q.groupAny) }

func names(m map[string]*limit, wildcard *limit) []string {
	out := make([]string, 0, len(m)+1)
	for n := range m {
		out = append(out, n)
	}
	if wildcard != nil {
		out = append(out, Wildcard)
	}
	slices.Sort(out)
	return out
}

// plan reads every limit of the queue tree under root into a table by
// queue path. It fails, naming the queue and the entry, on a malformed
// tree or limit; it changes nothing but the resource registry (new resource
// names are interned).
func (m *Manager) plan(root *config.QueueConfig) (map[string]*queueLimits, error) {
	if root == nil {
		return nil, fmt.Errorf("usage limits: no root queue given")
	}
	if p := pathOf(root, ""); p != config.RootQueue {
		return nil, fmt.Errorf("usage limits: the top queue is %q, want %q", p, config.RootQueue)
	}
	out := map[string]*queueLimits{}
	seen := map[string]bool{}
	var walk func(q *config.QueueConfig, parent string) error
	walk = func(q *config.QueueConfig, parent string) error {
		path := pathOf(q, parent)
		if !checkPath(path) || (parent != "" && depth(path) != depth(parent)+1) {
			return fmt.Errorf("usage limits: invalid queue path %q under %q", path, parent)
		}
		if seen[path] {
			return fmt.Errorf("usage limits: queue %s appears twice", path)
		}
		seen[path] = true
		if len(q.Limits) > 0 {
			ql, err := m.queueLimits(path, q.Limits)
			if err != nil {
				return err
			}
			out[path] = ql
		}
		for i := range q.Queues {
			if err := walk(&q.Queues[i], path); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, ""); err != nil {
		return nil, err
	}
	return out, nil
}

// pathOf is the queue's parsed path, or its name appended to the parent's
// path for a tree that was not built by config.Parse.
func pathOf(q *config.QueueConfig, parent string) string {
	if q.Path != "" {
		return q.Path
	}
	if parent == "" {
		return q.Name
	}
	return parent + "." + q.Name
}

func (m *Manager) queueLimits(path string, ls []config.Limit) (*queueLimits, error) {
	ql := &queueLimits{users: map[string]*limit{}, groups: map[string]*limit{}}
	for i := range ls {
		l := &ls[i]
		where := fmt.Sprintf("queue %s limits[%d]", path, i)
		lim := &limit{maxApps: l.MaxApplications}
		if l.Max != nil {
			q, err := m.reg.QuotaFromMap(l.Max)
			if err != nil {
				return nil, fmt.Errorf("%s: maxresources: %w", where, err)
			}
			lim.max = q
		}
		for _, u := range l.Users {
			switch {
			case u == "":
				return nil, fmt.Errorf("%s: empty user name", where)
			case u == Wildcard && ql.userAny != nil, ql.users[u] != nil:
				return nil, fmt.Errorf("%s: user %q has more than one limit on the queue", where, u)
			case u == Wildcard:
				ql.userAny = lim
			default:
				ql.users[u] = lim
			}
		}
		for _, g := range l.Groups {
			switch {
			case g == "":
				return nil, fmt.Errorf("%s: empty group name", where)
			case g == Wildcard && ql.groupAny != nil, ql.groups[g] != nil:
				return nil, fmt.Errorf("%s: group %q has more than one limit on the queue", where, g)
			case g == Wildcard:
				ql.groupAny = lim
			default:
				ql.groups[g] = lim
				ql.groupOrder = append(ql.groupOrder, g)
			}
		}
	}
	return ql, nil
}

// limitEvents lists the limit events taking the configuration from the
// live limits to next: SET for a limit that is new or changed, REMOVE for
// one that is gone, ordered by queue path, users before groups, then name.
func (m *Manager) limitEvents(next map[string]*queueLimits) []Event {
	paths := map[string]bool{}
	for p, lv := range m.levels {
		if lv.limits != nil {
			paths[p] = true
		}
	}
	for p := range next {
		paths[p] = true
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	slices.SortFunc(sorted, cmp.Compare)
	empty := &queueLimits{}
	var out []Event
	for _, p := range sorted {
		prev, now := empty, empty
		if lv := m.levels[p]; lv != nil && lv.limits != nil {
			prev = lv.limits
		}
		if n := next[p]; n != nil {
			now = n
		}
		out = diffLimits(out, UserLimit, p, prev.userNames(), now.userNames(),
			func(n string) *limit { l, named := prev.user(n); return only(l, named || n == Wildcard) },
			func(n string) *limit { l, named := now.user(n); return only(l, named || n == Wildcard) })
		out = diffLimits(out, GroupLimit, p, prev.groupNames(), now.groupNames(), prev.group, now.group)
	}
	return out
}

func only(l *limit, ok bool) *limit {
	if !ok {
		return nil
	}
	return l
}

func diffLimits(out []Event, t EventType, path string, before, after []string, old, cur func(string) *limit) []Event {
	all := slices.Compact(slices.Sorted(slices.Values(append(slices.Clip(before), after...))))
	for _, n := range all {
		o, c := old(n), cur(n)
		switch {
		case c == nil && o != nil:
			out = append(out, Event{Type: t, Change: Remove, ObjectID: n, ReferenceID: path})
		case c != nil && (o == nil || !o.equal(c)):
			out = append(out, Event{Type: t, Change: Set, ObjectID: n, ReferenceID: path})
		}
	}
	return out
}
