package resource

import (
	"math"
	"strconv"
	"strings"
)

// Vector holds one quantity per resource type, indexed by a Registry's
// Index; a type a vector does not mention is 0. It is a plain value: copy
// it, compare it with ==, and use it as a map key. No method allocates.
//
// Add, Sub and Inc/Dec wrap on int64 overflow like Go integers do; use them
// for values already known to be in range: totals, which the SI edge and
// the partition keep at or below MaxQuantity (limit.go). At trust
// boundaries use Above, AddChecked, SubChecked and MulChecked, which
// report overflow instead.
type Vector [MaxTypes]int64

// Add returns a + b.
func (a Vector) Add(b Vector) Vector {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

// Sub returns a - b.
func (a Vector) Sub(b Vector) Vector {
	for i := range a {
		a[i] -= b[i]
	}
	return a
}

// Inc adds d to v in place.
func (v *Vector) Inc(d Vector) {
	for i := range v {
		v[i] += d[i]
	}
}

// Dec subtracts d from v in place.
func (v *Vector) Dec(d Vector) {
	for i := range v {
		v[i] -= d[i]
	}
}

// AddChecked returns a + b, or false if any component overflows int64.
func (a Vector) AddChecked(b Vector) (Vector, bool) {
	var out Vector
	for i := range a {
		s := a[i] + b[i]
		// Overflow happened iff both operands have the sign the sum lacks.
		if (a[i]^s)&(b[i]^s) < 0 {
			return Vector{}, false
		}
		out[i] = s
	}
	return out, true
}

// SubChecked returns a - b, or false if any component overflows int64.
func (a Vector) SubChecked(b Vector) (Vector, bool) {
	var out Vector
	for i := range a {
		d := a[i] - b[i]
		// Overflow happened iff the operands differ in sign and the
		// result's sign differs from a's.
		if (a[i]^b[i])&(a[i]^d) < 0 {
			return Vector{}, false
		}
		out[i] = d
	}
	return out, true
}

// MulChecked returns a scaled by n, or false if any component overflows.
func (a Vector) MulChecked(n int64) (Vector, bool) {
	for i, x := range a {
		p, ok := mul64(x, n)
		if !ok {
			return Vector{}, false
		}
		a[i] = p
	}
	return a, true
}

func mul64(x, n int64) (int64, bool) {
	if x == 0 || n == 0 {
		return 0, true
	}
	p := x * n
	if p/n != x || (x == -1 && n == math.MinInt64) || (n == -1 && x == math.MinInt64) {
		return 0, false
	}
	return p, true
}

// Fits reports whether a request a fits in what b has available: every
// type a uses (a[i] > 0) satisfies a[i] <= b[i]. Types a does not use are
// not checked, so an over-committed (negative) type in b does not block a
// request that does not need it. A type b lacks (0) blocks any request for
// it, which makes the root admission check strict.
func (a Vector) Fits(b Vector) bool {
	for i := range a {
		if a[i] > 0 && a[i] > b[i] {
			return false
		}
	}
	return true
}

// Min returns the component-wise minimum of a and b.
func (a Vector) Min(b Vector) Vector {
	for i := range a {
		a[i] = min(a[i], b[i])
	}
	return a
}

// Max returns the component-wise maximum of a and b.
func (a Vector) Max(b Vector) Vector {
	for i := range a {
		a[i] = max(a[i], b[i])
	}
	return a
}

// IsZero reports whether every component is 0.
func (a Vector) IsZero() bool {
	return a == Vector{}
}

// HasNegative reports whether some component is below 0.
func (a Vector) HasNegative() bool {
	for _, x := range a {
		if x < 0 {
			return true
		}
	}
	return false
}

// AnyPositive reports whether some component is above 0. A valid request is
// one with AnyPositive and not HasNegative.
func (a Vector) AnyPositive() bool {
	for _, x := range a {
		if x > 0 {
			return true
		}
	}
	return false
}

// String formats the non-zero components by index, e.g. "{0:2000 1:1024}".
// Use Registry.Format to print resource names.
func (a Vector) String() string {
	var b strings.Builder
	b.WriteByte('{')
	first := true
	for i, x := range a {
		if x == 0 {
			continue
		}
		if !first {
			b.WriteByte(' ')
		}
		first = false
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(x, 10))
	}
	b.WriteByte('}')
	return b.String()
}
