package config

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// ACL name patterns. They are narrower than the user and group patterns of
// limits: names that do not match are silently left out of an ACL.
var (
	aclUserRegexp  = regexp.MustCompile(`^[_a-zA-Z][a-zA-Z0-9_.@-]*[$]?$`)
	aclGroupRegexp = regexp.MustCompile(`^[_a-zA-Z][a-zA-Z0-9_-]*$`)
)

const wildcard = "*"

// ACL is a parsed access control list: "*", or a comma-separated user list
// and a comma-separated group list separated by one space. The zero ACL
// denies everyone.
type ACL struct {
	all    bool
	users  map[string]struct{}
	groups map[string]struct{}
}

// ParseACL parses an ACL string. An empty string or a single space denies
// all; "*" in either list allows all; a leading space means groups only.
// More than one space (more than two fields) is an error. Names that are not
// valid user or group names are silently ignored.
func ParseACL(s string) (ACL, error) {
	var a ACL
	if s == "" || s == " " {
		return a, nil
	}
	if s == wildcard {
		a.all = true
		return a, nil
	}
	fields := strings.Split(s, " ")
	if len(fields) > 2 {
		return ACL{}, fmt.Errorf("ACL %q has more than one space: want \"users groups\"", s)
	}
	for _, u := range strings.Split(fields[0], ",") {
		switch {
		case u == wildcard:
			a.all = true
		case aclUserRegexp.MatchString(u):
			if a.users == nil {
				a.users = map[string]struct{}{}
			}
			a.users[u] = struct{}{}
		}
	}
	if len(fields) == 2 {
		for _, g := range strings.Split(fields[1], ",") {
			switch {
			case g == wildcard:
				a.all = true
			case aclGroupRegexp.MatchString(g):
				if a.groups == nil {
					a.groups = map[string]struct{}{}
				}
				a.groups[g] = struct{}{}
			}
		}
	}
	return a, nil
}

// Allows reports whether the user, or any of the given groups, is granted
// access: wildcard first, then the user list, then the group list.
func (a ACL) Allows(user string, groups []string) bool {
	if a.all {
		return true
	}
	if _, ok := a.users[user]; ok {
		return true
	}
	for _, g := range groups {
		if _, ok := a.groups[g]; ok {
			return true
		}
	}
	return false
}

// AllowsAll reports whether the ACL is a wildcard.
func (a ACL) AllowsAll() bool { return a.all }

// Users returns the accepted user names, sorted.
func (a ACL) Users() []string { return sortedSet(a.users) }

// Groups returns the accepted group names, sorted.
func (a ACL) Groups() []string { return sortedSet(a.groups) }

func sortedSet(m map[string]struct{}) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
