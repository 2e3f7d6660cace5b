package resource

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FromMap converts named quantities to a vector, interning new names in
// sorted order. A quantity of 0 is as good as none: its name is not
// interned (the Kubernetes shim sends a node's whole allocatable, with
// hugepages and device-plugin entries at 0, which must not use up the
// types an RM may have). A negative quantity or one above MaxQuantity is
// rejected, naming the resource, and so is a map that would need more than
// Limit types in total; on error the registry is unchanged.
func (r *Registry) FromMap(m map[string]int64) (Vector, error) {
	var v Vector
	if err := r.internMap(m, true); err != nil {
		return v, err
	}
	for n, x := range m {
		if i, ok := r.Index(n); ok {
			v[i] = x
		}
	}
	return v, nil
}

// QuotaFromMap converts a max or guaranteed map to a quota: every name in
// the map is limited, including those with 0 (which makes the type
// unavailable); names absent from the map are unlimited. A limit above
// MaxQuantity is saturated to it: no total can exceed MaxQuantity, so the
// quota means the same. Other errors are those of FromMap.
func (r *Registry) QuotaFromMap(m map[string]int64) (Quota, error) {
	var q Quota
	if err := r.internMap(m, false); err != nil {
		return q, err
	}
	for n, x := range m {
		i, _ := r.Index(n)
		q = q.With(i, min(x, MaxQuantity))
	}
	return q, nil
}

// internMap checks the map's values and interns its names, all or nothing.
// Names are interned in sorted order so index assignment is deterministic.
// With bounded (a vector's quantities), a quantity above MaxQuantity is
// bad too, and a name with 0 is not interned.
func (r *Registry) internMap(m map[string]int64, bounded bool) error {
	var fresh []string
	for n, x := range m {
		if x < 0 || (bounded && x > MaxQuantity) || n == "" {
			return firstBad(m, bounded)
		}
		if _, ok := r.Index(n); !ok && !(bounded && x == 0) {
			fresh = append(fresh, n)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	slices.Sort(fresh)
	return r.internAll(fresh)
}

// firstBad reports the bad entry with the smallest name, so the message does
// not depend on map iteration order.
func firstBad(m map[string]int64, bounded bool) error {
	for _, n := range sortedKeys(m) {
		if n == "" {
			return fmt.Errorf("resource name is empty")
		}
		if x := m[n]; x < 0 {
			return fmt.Errorf("resource %q: quantity %d is negative", n, x)
		}
		if bounded {
			if err := checkQuantity(n, m[n]); err != nil {
				return err
			}
		}
	}
	return nil
}

// ToMap converts a vector to named quantities, omitting zero components.
// Components at indexes nothing is interned at are omitted too.
func (r *Registry) ToMap(v Vector) map[string]int64 {
	t := r.table()
	m := make(map[string]int64)
	for i, x := range v {
		if x != 0 && i < len(t) {
			m[t[i]] = x
		}
	}
	return m
}

// QuotaToMap converts a quota to named limits: every limited type is
// present, with 0 for an unavailable type; unlimited types are absent.
func (r *Registry) QuotaToMap(q Quota) map[string]int64 {
	t := r.table()
	m := make(map[string]int64)
	for i, x := range q.limit {
		if q.set.Has(Index(i)) && i < len(t) {
			m[t[i]] = x
		}
	}
	return m
}

// Format prints a vector's non-zero components by name in sorted order, e.g.
// "{memory:1024 vcore:2000}", for logs and error messages.
func (r *Registry) Format(v Vector) string {
	return r.format(v, AllTypes, true)
}

// FormatQuota prints a quota's limited types by name in sorted order,
// including limits of 0; an unlimited quota prints as "{}". Types no name
// is interned for are left out (a quota of every type, as the root's, has
// them all set).
func (r *Registry) FormatQuota(q Quota) string {
	set := q.set
	for i := r.Len(); i < MaxTypes; i++ {
		set &^= 1 << i
	}
	return r.format(q.limit, set, false)
}

func (r *Registry) format(v Vector, set Mask, skipZero bool) string {
	t := r.table()
	entries := make(map[string]int64, len(t))
	for i, x := range v {
		if !set.Has(Index(i)) || (skipZero && x == 0) {
			continue
		}
		name := "#" + strconv.Itoa(i) // an index nothing is interned at
		if i < len(t) {
			name = t[i]
		}
		entries[name] = x
	}
	var b strings.Builder
	b.WriteByte('{')
	for k, n := range sortedKeys(entries) {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(n)
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(entries[n], 10))
	}
	b.WriteByte('}')
	return b.String()
}
