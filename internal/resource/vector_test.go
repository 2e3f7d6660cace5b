package resource

import (
	"math"
	"testing"
)

// vec builds a vector from its leading components.
func vec(xs ...int64) Vector {
	var v Vector
	copy(v[:], xs)
	return v
}

const (
	maxI = math.MaxInt64
	minI = math.MinInt64
)

func TestAddSub(t *testing.T) {
	tests := []struct {
		a, b, sum, diff Vector
	}{
		{vec(), vec(), vec(), vec()},
		{vec(1, 2, 3), vec(10, 20, 30), vec(11, 22, 33), vec(-9, -18, -27)},
		{vec(5, -5), vec(-5, 5), vec(0, 0), vec(10, -10)},
	}
	for _, tc := range tests {
		if got := tc.a.Add(tc.b); got != tc.sum {
			t.Errorf("%v.Add(%v) = %v, want %v", tc.a, tc.b, got, tc.sum)
		}
		if got := tc.a.Sub(tc.b); got != tc.diff {
			t.Errorf("%v.Sub(%v) = %v, want %v", tc.a, tc.b, got, tc.diff)
		}
		v := tc.a
		v.Inc(tc.b)
		if v != tc.sum {
			t.Errorf("Inc: %v + %v = %v, want %v", tc.a, tc.b, v, tc.sum)
		}
		v = tc.a
		v.Dec(tc.b)
		if v != tc.diff {
			t.Errorf("Dec: %v - %v = %v, want %v", tc.a, tc.b, v, tc.diff)
		}
	}
}

func TestAddChecked(t *testing.T) {
	tests := []struct {
		a, b Vector
		want Vector
		ok   bool
	}{
		{vec(1, 2), vec(3, 4), vec(4, 6), true},
		{vec(maxI - 1), vec(1), vec(maxI), true},
		{vec(maxI), vec(1), Vector{}, false},
		{vec(0, maxI), vec(0, maxI), Vector{}, false},
		{vec(minI), vec(-1), Vector{}, false},
		{vec(minI), vec(maxI), vec(-1), true},
		{vec(maxI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5), vec(minI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, maxI), Vector{}, false},
	}
	for _, tc := range tests {
		got, ok := tc.a.AddChecked(tc.b)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%v.AddChecked(%v) = %v, %v; want %v, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSubChecked(t *testing.T) {
	tests := []struct {
		a, b Vector
		want Vector
		ok   bool
	}{
		{vec(5, 5), vec(3, 7), vec(2, -2), true},
		{vec(minI + 1), vec(1), vec(minI), true},
		{vec(minI), vec(1), Vector{}, false},
		{vec(0), vec(minI), Vector{}, false},
		{vec(-1), vec(minI), vec(maxI), true},
		{vec(maxI), vec(-1), Vector{}, false},
		{vec(0, 0, 0, 1), vec(0, 0, 0, minI), Vector{}, false},
	}
	for _, tc := range tests {
		got, ok := tc.a.SubChecked(tc.b)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%v.SubChecked(%v) = %v, %v; want %v, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
}

func TestMulChecked(t *testing.T) {
	tests := []struct {
		a    Vector
		n    int64
		want Vector
		ok   bool
	}{
		{vec(1000, 1<<30), 4, vec(4000, 4<<30), true},
		{vec(1, 2), 0, vec(), true},
		{vec(3, -2), -1, vec(-3, 2), true},
		{vec(maxI), 1, vec(maxI), true},
		{vec(maxI/2 + 1), 2, Vector{}, false},
		{vec(1 << 40), 1 << 30, Vector{}, false},
		{vec(minI), -1, Vector{}, false},
		{vec(-1), minI, Vector{}, false},
		{vec(0, 7), maxI, Vector{}, false},
	}
	for _, tc := range tests {
		got, ok := tc.a.MulChecked(tc.n)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%v.MulChecked(%d) = %v, %v; want %v, %v", tc.a, tc.n, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFits(t *testing.T) {
	tests := []struct {
		name string
		a, b Vector
		want bool
	}{
		{"zero fits zero", vec(), vec(), true},
		{"equal", vec(1000, 1024), vec(1000, 1024), true},
		{"smaller", vec(500, 10), vec(1000, 1024), true},
		{"one type too big", vec(1001, 10), vec(1000, 1024), false},
		{"last type too big", vec(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2), vec(9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 1), false},
		{"type b lacks", vec(1, 1, 1), vec(100, 100), false},
		{"unused type over-committed in b", vec(100, 0), vec(100, -5), true},
		{"used type over-committed in b", vec(100, 1), vec(100, -5), false},
		{"nothing fits negative", vec(1), vec(-1), false},
		{"negative a fits", vec(-3), vec(0), true},
	}
	for _, tc := range tests {
		if got := tc.a.Fits(tc.b); got != tc.want {
			t.Errorf("%s: %v.Fits(%v) = %v, want %v", tc.name, tc.a, tc.b, got, tc.want)
		}
	}
}

func TestMinMax(t *testing.T) {
	a, b := vec(1, 5, -3, 0), vec(2, 4, -7, 9)
	if got, want := a.Min(b), vec(1, 4, -7, 0); got != want {
		t.Errorf("Min = %v, want %v", got, want)
	}
	if got, want := a.Max(b), vec(2, 5, -3, 9); got != want {
		t.Errorf("Max = %v, want %v", got, want)
	}
}

func TestPredicates(t *testing.T) {
	tests := []struct {
		v                           Vector
		zero, negative, anyPositive bool
	}{
		{vec(), true, false, false},
		{vec(0, 1), false, false, true},
		{vec(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1), false, true, false},
		{vec(3, -1), false, true, true},
	}
	for _, tc := range tests {
		if got := tc.v.IsZero(); got != tc.zero {
			t.Errorf("%v.IsZero() = %v", tc.v, got)
		}
		if got := tc.v.HasNegative(); got != tc.negative {
			t.Errorf("%v.HasNegative() = %v", tc.v, got)
		}
		if got := tc.v.AnyPositive(); got != tc.anyPositive {
			t.Errorf("%v.AnyPositive() = %v", tc.v, got)
		}
	}
}

func TestVectorString(t *testing.T) {
	tests := []struct {
		v    Vector
		want string
	}{
		{vec(), "{}"},
		{vec(2000, 1024), "{0:2000 1:1024}"},
		{vec(0, 0, -5, 0, 7), "{2:-5 4:7}"},
	}
	for _, tc := range tests {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}
