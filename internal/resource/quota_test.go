package resource

import "testing"

func TestQuotaBasics(t *testing.T) {
	var q Quota
	if !q.IsUnlimited() || q.Mask() != 0 {
		t.Fatalf("zero Quota is not unlimited: %+v", q)
	}
	q = q.With(MemoryIndex, 0).With(3, 7)
	if q.IsUnlimited() {
		t.Error("quota with limits reports unlimited")
	}
	if n, ok := q.Limit(MemoryIndex); !ok || n != 0 {
		t.Errorf("Limit(memory) = %d, %v; want 0, true", n, ok)
	}
	if n, ok := q.Limit(3); !ok || n != 7 {
		t.Errorf("Limit(3) = %d, %v; want 7, true", n, ok)
	}
	if _, ok := q.Limit(VCoreIndex); ok {
		t.Error("Limit(vcore) reports a limit that was never set")
	}
	if _, ok := q.Limit(MaxTypes); ok {
		t.Error("Limit(MaxTypes) reports a limit")
	}
	if got, want := q.Mask(), Mask(1<<MemoryIndex|1<<3); got != want {
		t.Errorf("Mask() = %b, want %b", got, want)
	}
	if got, want := q.Limits(), vec(0, 0, 0, 7); got != want {
		t.Errorf("Limits() = %v, want %v", got, want)
	}
	if q.With(MaxTypes, 5) != q || q.Without(200) != q {
		t.Error("With/Without of an out-of-range index changed the quota")
	}
	if back := q.With(5, 9).Without(5); back != q {
		t.Errorf("With then Without = %+v, want %+v", back, q)
	}
	if QuotaOf(vec(1, 2)).Mask() != AllTypes {
		t.Error("QuotaOf does not limit every type")
	}
}

func TestQuotaAllows(t *testing.T) {
	q := Quota{}.With(VCoreIndex, 4000).With(MemoryIndex, 0)
	tests := []struct {
		name string
		q    Quota
		v    Vector
		want bool
	}{
		{"unlimited allows anything", Quota{}, vec(maxI, maxI, maxI), true},
		{"within", q, vec(4000), true},
		{"over the limit", q, vec(4001), false},
		{"zero limit makes a type unavailable", q, vec(1, 1), false},
		{"zero use of an unavailable type", q, vec(10, 0), true},
		{"types not in the quota are unlimited", q, vec(0, 0, 1<<40), true},
		{"root is strict about types the cluster lacks", QuotaOf(vec(8000, 1<<30)), vec(1, 1, 1), false},
		{"root allows what fits", QuotaOf(vec(8000, 1<<30)), vec(8000, 1<<30), true},
		{"negative headroom blocks a type in use", Quota{}.With(VCoreIndex, -5), vec(1), false},
		{"negative headroom ignores an unused type", Quota{}.With(VCoreIndex, -5).With(MemoryIndex, 10), vec(0, 10), true},
	}
	for _, tc := range tests {
		if got := tc.q.Allows(tc.v); got != tc.want {
			t.Errorf("%s: Allows(%v) = %v, want %v", tc.name, tc.v, got, tc.want)
		}
	}
}

func TestQuotaHeadroomAndAllowsAdd(t *testing.T) {
	q := Quota{}.With(VCoreIndex, 4000).With(MemoryIndex, 1000)
	tests := []struct {
		name      string
		q         Quota
		used, ask Vector
		headroom  Quota
		allows    bool
	}{
		{"room left", q, vec(1000, 500), vec(3000, 500), Quota{}.With(VCoreIndex, 3000).With(MemoryIndex, 500), true},
		{"one over", q, vec(1000, 500), vec(3001, 1), Quota{}.With(VCoreIndex, 3000).With(MemoryIndex, 500), false},
		{"unlimited type", q, vec(0, 0, 1<<50), vec(0, 0, 1<<50), Quota{}.With(VCoreIndex, 4000).With(MemoryIndex, 1000), true},
		{"over the max already", q, vec(5000, 0), vec(0, 10), Quota{}.With(VCoreIndex, -1000).With(MemoryIndex, 1000), true},
		{"over the max, asking for it", q, vec(5000, 0), vec(1, 10), Quota{}.With(VCoreIndex, -1000).With(MemoryIndex, 1000), false},
		{"sum overflows", Quota{}.With(VCoreIndex, maxI), vec(maxI), vec(1), Quota{}.With(VCoreIndex, 0), false},
		{"headroom saturates high", Quota{}.With(VCoreIndex, maxI), vec(-10), vec(maxI), Quota{}.With(VCoreIndex, maxI), true},
		{"headroom saturates low", Quota{}.With(VCoreIndex, -10), vec(maxI), vec(1), Quota{}.With(VCoreIndex, minI), false},
	}
	for _, tc := range tests {
		h := tc.q.Headroom(tc.used)
		if h != tc.headroom {
			t.Errorf("%s: Headroom(%v) = %+v, want %+v", tc.name, tc.used, h, tc.headroom)
		}
		if got := tc.q.AllowsAdd(tc.used, tc.ask); got != tc.allows {
			t.Errorf("%s: AllowsAdd(%v, %v) = %v, want %v", tc.name, tc.used, tc.ask, got, tc.allows)
		}
		if got := h.Allows(tc.ask); got != tc.allows {
			t.Errorf("%s: Headroom(%v).Allows(%v) = %v, want %v", tc.name, tc.used, tc.ask, got, tc.allows)
		}
	}
}

func TestQuotaMin(t *testing.T) {
	a := Quota{}.With(VCoreIndex, 4000).With(MemoryIndex, 100)
	b := Quota{}.With(MemoryIndex, 50).With(2, 0)
	want := Quota{}.With(VCoreIndex, 4000).With(MemoryIndex, 50).With(2, 0)
	if got := a.Min(b); got != want {
		t.Errorf("Min = %+v, want %+v", got, want)
	}
	if got := b.Min(a); got != want {
		t.Errorf("Min is not symmetric: %+v", got)
	}
	if got := a.Min(Quota{}); got != a {
		t.Errorf("Min with unlimited = %+v, want %+v", got, a)
	}
}

func TestQuotaOverlay(t *testing.T) {
	cluster := vec(10000, 1<<30, 8)
	q := Quota{}.With(MemoryIndex, 1<<20).With(2, 0)
	if got, want := q.Overlay(cluster), vec(10000, 1<<20, 0); got != want {
		t.Errorf("Overlay = %v, want %v", got, want)
	}
	if got := (Quota{}).Overlay(cluster); got != cluster {
		t.Errorf("unlimited Overlay = %v, want %v", got, cluster)
	}
}
