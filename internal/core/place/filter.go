package place

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/paddock-sched/paddock/internal/config"
)

// specials make a single filter entry a regular expression.
const specials = "^$*+?()[{}|"

// filter is a compiled rule filter (reference §1.9): a single entry is a
// name or, with regex specials, a regular expression matched anywhere in
// the name (as the reference does: write ^ and $ for whole names); two or
// more entries are a literal list.
type filter struct {
	deny          bool
	users, groups matcher
	empty         bool // no users and no groups configured
}

type matcher struct {
	re    *regexp.Regexp
	names map[string]bool
}

func (m matcher) set() bool { return m.re != nil || len(m.names) > 0 }

func (m matcher) match(s string) bool {
	if m.re != nil {
		return m.re.MatchString(s)
	}
	return m.names[s]
}

func compileMatcher(list []string) (matcher, error) {
	switch len(list) {
	case 0:
		return matcher{}, nil
	case 1:
		e := strings.TrimSpace(list[0])
		if strings.ContainsAny(e, specials) {
			// unanchored, as the reference matches it: "admin|ops" also
			// takes "cluster-admin"; a configuration that means whole
			// names writes ^ and $
			re, err := regexp.Compile(e)
			if err != nil {
				return matcher{}, fmt.Errorf("filter regexp %q: %w", e, err)
			}
			return matcher{re: re}, nil
		}
		return matcher{names: map[string]bool{e: true}}, nil
	}
	m := matcher{names: map[string]bool{}}
	for _, e := range list {
		m.names[strings.TrimSpace(e)] = true
	}
	return m, nil
}

func compileFilter(f config.Filter) (filter, error) {
	out := filter{deny: strings.EqualFold(f.Type, config.FilterDeny)}
	var err error
	if out.users, err = compileMatcher(f.Users); err != nil {
		return out, err
	}
	if out.groups, err = compileMatcher(f.Groups); err != nil {
		return out, err
	}
	out.empty = !out.users.set() && !out.groups.set()
	return out, nil
}

// allows reports whether the rule applies to the user: an allow filter
// applies to listed users and members of listed groups (everyone when
// nothing is listed); a deny filter to everyone else (nobody when nothing
// is listed).
func (f filter) allows(user string, groups []string) bool {
	if f.empty {
		return !f.deny
	}
	listed := f.users.set() && f.users.match(user)
	if !listed && f.groups.set() {
		for _, g := range groups {
			if f.groups.match(g) {
				listed = true
				break
			}
		}
	}
	return listed != f.deny
}
