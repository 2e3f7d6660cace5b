package config

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/paddock-sched/paddock/internal/resource"
)

// Quantities maps resource names to parsed quantities: vcore in
// millicores, memory in bytes, every other resource as an opaque integer.
type Quantities map[string]int64

// ParseQuantities parses a map of quantity strings. It returns nil for an
// empty map and an error naming the first bad entry (in name order).
func ParseQuantities(m map[string]string) (Quantities, error) {
	var ps problems
	q := parseQuantities(&ps, "", "", m)
	if len(ps.list) > 0 {
		return nil, fmt.Errorf("%s: %s", ps.list[0].Key, ps.list[0].Message)
	}
	return q, nil
}

// parseQuantities parses m, recording a problem under key.<name> for every
// bad entry. Bad entries are left out of the result.
func parseQuantities(ps *problems, queue, key string, m map[string]string) Quantities {
	if len(m) == 0 {
		return nil
	}
	out := make(Quantities, len(m))
	for _, name := range sortedKeys(m) {
		s := m[name]
		k := joinKey(key, name)
		if strings.TrimSpace(name) == "" {
			ps.add(queue, k, "empty resource name")
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(s), "-") {
			ps.add(queue, k, "negative quantity %q is not allowed", s)
			continue
		}
		v, err := resource.ParseValue(name, s)
		if err != nil {
			ps.add(queue, k, "%v", err)
			continue
		}
		out[name] = v
	}
	return out
}

// allZero reports whether q is non-empty and every value is zero.
func (q Quantities) allZero() bool {
	if len(q) == 0 {
		return false
	}
	for _, v := range q {
		if v != 0 {
			return false
		}
	}
	return true
}

// withoutZeros returns q without its zero entries, nil if nothing is left.
func (q Quantities) withoutZeros() Quantities {
	var out Quantities
	for k, v := range q {
		if v != 0 {
			if out == nil {
				out = Quantities{}
			}
			out[k] = v
		}
	}
	return out
}

// exceeding returns, in name order, the names whose value in q is larger
// than in limit. Names absent from limit are unlimited.
func (q Quantities) exceeding(limit Quantities) []string {
	var out []string
	for _, name := range sortedKeys(q) {
		if l, ok := limit[name]; ok && q[name] > l {
			out = append(out, name)
		}
	}
	return out
}

// minMerge returns the component-wise minimum of a and b where both define
// a name, and the defined value where only one does.
func minMerge(a, b Quantities) Quantities {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := make(Quantities, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if cur, ok := out[k]; !ok || v < cur {
			out[k] = v
		}
	}
	return out
}

// addSat adds b into a (allocating a if nil), saturating at MaxInt64.
func addSat(a, b Quantities) Quantities {
	if a == nil {
		a = Quantities{}
	}
	for k, v := range b {
		s := a[k]
		if v > math.MaxInt64-s {
			a[k] = math.MaxInt64
		} else {
			a[k] = s + v
		}
	}
	return a
}

// FormatQuantity renders a parsed quantity for messages: vcore in cores or
// millicores, other resources with the largest exact binary suffix.
func FormatQuantity(name string, v int64) string {
	if name == resource.VCore {
		if v%1000 == 0 {
			return strconv.FormatInt(v/1000, 10)
		}
		return strconv.FormatInt(v, 10) + "m"
	}
	if v > 0 {
		for _, s := range []struct {
			suffix string
			shift  uint
		}{{"Ei", 60}, {"Pi", 50}, {"Ti", 40}, {"Gi", 30}, {"Mi", 20}, {"Ki", 10}} {
			if v%(int64(1)<<s.shift) == 0 {
				return strconv.FormatInt(v>>s.shift, 10) + s.suffix
			}
		}
	}
	return strconv.FormatInt(v, 10)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func joinKey(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}
