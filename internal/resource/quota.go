package resource

import "math"

// Mask is a set of resource types, bit i standing for Index i.
type Mask uint32

// The mask must hold one bit per type.
var _ [32 - MaxTypes]struct{}

// AllTypes is the mask with every type set.
const AllTypes Mask = 1<<MaxTypes - 1

// Has reports whether type i is in the mask.
func (m Mask) Has(i Index) bool {
	return m&(1<<i) != 0
}

// Quota is an upper bound per resource type, modelling a YuniKorn max
// resource: a type missing from the quota is unlimited, a type set to 0 is
// unavailable. The zero value is unlimited in every type. Quota is a plain
// comparable value; unset types always hold 0 so == compares meaningfully.
type Quota struct {
	limit Vector
	set   Mask
}

// QuotaOf returns a quota that limits every type to v, including the
// types where v is 0. The root queue's quota is QuotaOf(cluster capacity).
func QuotaOf(v Vector) Quota {
	return Quota{limit: v, set: AllTypes}
}

// With returns q with type i limited to n. An Index outside
// 0..MaxTypes-1 leaves q unchanged.
func (q Quota) With(i Index, n int64) Quota {
	if int(i) >= MaxTypes {
		return q
	}
	q.limit[i] = n
	q.set |= 1 << i
	return q
}

// Without returns q with type i unlimited.
func (q Quota) Without(i Index) Quota {
	if int(i) >= MaxTypes {
		return q
	}
	q.limit[i] = 0
	q.set &^= 1 << i
	return q
}

// Limit returns the limit of type i and whether the type is limited.
func (q Quota) Limit(i Index) (int64, bool) {
	if int(i) >= MaxTypes || !q.set.Has(i) {
		return 0, false
	}
	return q.limit[i], true
}

// Limits returns the limits as a vector; unlimited types read as 0, so
// check Mask before treating a 0 as "unavailable".
func (q Quota) Limits() Vector {
	return q.limit
}

// Mask returns the set of limited types.
func (q Quota) Mask() Mask {
	return q.set
}

// IsUnlimited reports whether no type is limited.
func (q Quota) IsUnlimited() bool {
	return q.set == 0
}

// Allows reports whether v stays within q: every limited type that v uses
// (v[i] > 0) satisfies v[i] <= limit. Like Vector.Fits, types v does not use
// are not checked, so a negative headroom in some type blocks only requests
// that need that type.
func (q Quota) Allows(v Vector) bool {
	for i := range v {
		if v[i] > 0 && q.set&(1<<i) != 0 && v[i] > q.limit[i] {
			return false
		}
	}
	return true
}

// AllowsAdd reports whether adding ask to used stays within q for every
// limited type that ask uses; it equals q.Headroom(used).Allows(ask) without
// building the headroom. A sum that would overflow int64 is not allowed.
func (q Quota) AllowsAdd(used, ask Vector) bool {
	for i := range ask {
		if ask[i] <= 0 || q.set&(1<<i) == 0 {
			continue
		}
		s := used[i] + ask[i]
		if s < used[i] || s > q.limit[i] { // s < used[i]: overflow, ask > 0
			return false
		}
	}
	return true
}

// Headroom returns what is left of q once used is taken: limit - used for
// limited types (negative when used is over the limit, saturating instead
// of overflowing), unlimited types stay unlimited.
func (q Quota) Headroom(used Vector) Quota {
	for i := range q.limit {
		if q.set&(1<<i) != 0 {
			q.limit[i] = subSat(q.limit[i], used[i])
		}
	}
	return q
}

// Min returns the tighter of two quotas per type: a type limited in both
// takes the smaller limit, a type limited in one takes that limit, and a
// type limited in neither stays unlimited. Queue headroom is the Min of the
// headrooms along the queue path.
func (q Quota) Min(r Quota) Quota {
	out := Quota{set: q.set | r.set}
	for i := range out.limit {
		// An unset side counts as +inf; a type set on neither side stays 0.
		a, b := int64(math.MaxInt64), int64(math.MaxInt64)
		if q.set&(1<<i) != 0 {
			a = q.limit[i]
		}
		if r.set&(1<<i) != 0 {
			b = r.limit[i]
		}
		if out.set&(1<<i) != 0 {
			out.limit[i] = min(a, b)
		}
	}
	return out
}

// Overlay returns base with every limited type replaced by q's limit. The
// fair-share denominator of a queue is its path's max overlaid on the
// cluster capacity.
func (q Quota) Overlay(base Vector) Vector {
	for i := range base {
		if q.set&(1<<i) != 0 {
			base[i] = q.limit[i]
		}
	}
	return base
}

func subSat(a, b int64) int64 {
	d := a - b
	if (a^b)&(a^d) < 0 {
		if a < 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return d
}
