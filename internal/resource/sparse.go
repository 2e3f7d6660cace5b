package resource

import "math/bits"

// Support's OR over the types past memory is written out for 16 types.
var _ [16 - MaxTypes]struct{}

// Support returns the types where v is not zero. Most vectors on the
// scheduling path use two or three of the MaxTypes slots; the *On methods
// below touch only the slots of a support mask.
func (a *Vector) Support() Mask {
	var m Mask
	if a[0] != 0 {
		m = 1
	}
	if a[1] != 0 {
		m |= 2
	}
	// vcore and memory are the first two types: most vectors stop there,
	// which one OR over the rest tells without a test per type (written
	// out: a loop costs a compare and a branch per type)
	rest := a[2] | a[3] | a[4] | a[5] | a[6] | a[7] | a[8] | a[9] |
		a[10] | a[11] | a[12] | a[13] | a[14] | a[15]
	if rest == 0 {
		return m
	}
	for i, x := range a[2:] {
		if x != 0 {
			m |= 1 << (i + 2)
		}
	}
	return m
}

// IncOn adds d to v on the types in m. It equals v.Inc(d) when m covers the
// support of d.
func (v *Vector) IncOn(d *Vector, m Mask) {
	for ; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(uint32(m))
		v[i] += d[i]
	}
}

// DecOn subtracts d from v on the types in m. It equals v.Dec(d) when m
// covers the support of d.
func (v *Vector) DecOn(d *Vector, m Mask) {
	for ; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(uint32(m))
		v[i] -= d[i]
	}
}

// MaxOn raises v to d on the types of m where d is larger.
func (v *Vector) MaxOn(d *Vector, m Mask) {
	for ; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(uint32(m))
		v[i] = max(v[i], d[i])
	}
}

// AddsOn reports whether v + d overflows no type of m.
func (v *Vector) AddsOn(d *Vector, m Mask) bool {
	for ; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(uint32(m))
		s := v[i] + d[i]
		if (v[i]^s)&(d[i]^s) < 0 {
			return false
		}
	}
	return true
}

// NegativeOn reports whether v is negative on a type of m.
func (v *Vector) NegativeOn(m Mask) bool {
	for ; m != 0; m &= m - 1 {
		if v[bits.TrailingZeros32(uint32(m))] < 0 {
			return true
		}
	}
	return false
}

// AllowsAddOn is AllowsAdd restricted to the types in m: it equals
// q.AllowsAdd(*used, *ask) when m covers the support of ask.
func (q *Quota) AllowsAddOn(used, ask *Vector, m Mask) bool {
	for m &= q.set; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(uint32(m))
		if ask[i] <= 0 {
			continue
		}
		s := used[i] + ask[i]
		if s < used[i] || s > q.limit[i] {
			return false
		}
	}
	return true
}
