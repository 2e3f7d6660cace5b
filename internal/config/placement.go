package config

import (
	"fmt"
	"regexp"
	"strings"
)

// filterSpecials are the characters that make a single filter entry a
// regular expression rather than a name.
const filterSpecials = "^$*+?()[{}|"

// maxRuleDepth bounds parent rule nesting; deeper chains are rejected.
const maxRuleDepth = 32

// validateRules normalises and validates the placement rules, including the
// static checks of chains made of fixed rules against the queue tree (root
// may be nil when the partition has no queues).
func validateRules(ps *problems, rules []PlacementRule, root *QueueConfig) {
	for i := range rules {
		key := fmt.Sprintf("placementrules[%d]", i)
		if !validateRule(ps, &rules[i], key, 0) || root == nil {
			continue
		}
		checkChain(ps, &rules[i], key, root)
	}
}

// validateRule checks one rule and its parents; it reports whether the
// chain is well-formed enough for the static queue checks.
func validateRule(ps *problems, r *PlacementRule, key string, depth int) bool {
	if depth >= maxRuleDepth {
		ps.add("", key, "parent rules nested more than %d deep", maxRuleDepth)
		return false
	}
	ok := true
	r.Name = strings.ToLower(strings.TrimSpace(r.Name))
	switch r.Name {
	case RuleProvided, RuleUser:
		if r.Value != "" {
			ps.warn("", key+".value", "the %s rule ignores value", r.Name)
		}
	case RuleFixed, RuleTag:
		if strings.TrimSpace(r.Value) == "" {
			ps.add("", key+".value", "the %s rule needs a value (%s)", r.Name, map[string]string{
				RuleFixed: "the queue to place in", RuleTag: "the application tag holding the queue"}[r.Name])
			ok = false
		}
	case "":
		ps.add("", key+".name", "rule name is empty: want provided, user, fixed or tag")
		ok = false
	case RuleRecovery:
		ps.add("", key+".name", "the recovery rule is added automatically and cannot be configured")
		ok = false
	default:
		ps.add("", key+".name", "unknown placement rule %q: want provided, user, fixed or tag", r.Name)
		ok = false
	}
	if r.Name == RuleFixed && ok {
		for _, part := range strings.Split(r.Value, ".") {
			if !queueNameRegexp.MatchString(part) {
				ps.add("", key+".value", "invalid queue path %q: %q is not a valid queue name", r.Value, part)
				ok = false
				break
			}
		}
	}
	f := &r.Filter
	f.Type = strings.ToLower(strings.TrimSpace(f.Type))
	switch f.Type {
	case "":
		f.Type = FilterAllow
	case FilterAllow, FilterDeny:
	default:
		ps.add("", key+".filter.type", "unknown filter type %q: want allow or deny", f.Type)
	}
	checkFilterList(ps, key+".filter.users", f.Users)
	checkFilterList(ps, key+".filter.groups", f.Groups)
	if r.Parent != nil && !validateRule(ps, r.Parent, key+".parent", depth+1) {
		ok = false
	}
	return ok
}

// checkFilterList rejects a single-entry filter that is meant as a regular
// expression but does not compile. Invalid names in longer lists are
// ignored when the filter is built.
func checkFilterList(ps *problems, key string, list []string) {
	if len(list) != 1 || !strings.ContainsAny(list[0], filterSpecials) {
		return
	}
	if _, err := regexp.Compile(list[0]); err != nil {
		ps.add("", key+"[0]", "invalid regular expression %q: %v", list[0], err)
	}
}

// checkChain statically follows a rule chain (deepest parent first) while
// every rule in it is fixed: the queue it names must exist or be creatable,
// be a leaf at the end of the chain and a parent before it. Only the first
// rule of a chain may name a fully qualified queue.
func checkChain(ps *problems, r *PlacementRule, key string, root *QueueConfig) {
	type link struct {
		rule *PlacementRule
		key  string
	}
	var chain []link
	for cur, k := r, key; cur != nil; cur, k = cur.Parent, k+".parent" {
		chain = append([]link{{cur, k}}, chain...)
	}
	path, known := "", true
	for i, l := range chain {
		last := i == len(chain)-1
		if l.rule.Name != RuleFixed {
			known = false
			continue
		}
		v := strings.ToLower(strings.TrimSpace(l.rule.Value))
		qualified := v == RootQueue || strings.HasPrefix(v, RootQueue+".")
		if qualified && i > 0 {
			ps.add("", l.key+".value", "the fully qualified queue %q cannot follow a parent rule", l.rule.Value)
			return
		}
		if !known {
			continue
		}
		switch {
		case qualified:
			path = v
		case path == "":
			path = RootQueue + "." + v
		default:
			path += "." + v
		}
		q, ancestor := lookupQueue(root, path)
		switch {
		case q != nil && last && !q.IsLeaf():
			ps.add("", l.key+".value", "the fixed rule places applications in %s, which is a parent queue", path)
			return
		case q != nil && !last && q.IsLeaf():
			ps.add("", l.key+".value", "the parent rule resolves to %s, which is a leaf queue", path)
			return
		case q == nil && !l.rule.Create:
			ps.add("", l.key+".create", "queue %s does not exist and the rule does not create it", path)
			return
		case q == nil && ancestor.IsLeaf():
			ps.add("", l.key+".value", "queue %s cannot be created under the leaf queue %s", path, ancestor.Path)
			return
		}
	}
}

// lookupQueue finds the queue at path; if it does not exist it returns nil
// and the deepest existing ancestor.
func lookupQueue(root *QueueConfig, path string) (found, ancestor *QueueConfig) {
	parts := strings.Split(path, ".")
	if parts[0] != RootQueue {
		return nil, root
	}
	cur := root
	for _, name := range parts[1:] {
		var next *QueueConfig
		for i := range cur.Queues {
			if cur.Queues[i].Name == name {
				next = &cur.Queues[i]
				break
			}
		}
		if next == nil {
			return nil, cur
		}
		cur = next
	}
	return cur, cur
}
