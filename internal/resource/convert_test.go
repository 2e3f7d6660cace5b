package resource

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

func TestFromMapToMap(t *testing.T) {
	r := NewRegistry()
	v, err := r.FromMap(map[string]int64{"vcore": 2000, "memory": 1024, "pods": 1, "ephemeral-storage": 0})
	if err != nil {
		t.Fatal(err)
	}
	// New names are interned in sorted order; a name with 0 is not.
	if got, want := r.Names(), []string{"vcore", "memory", "pods"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	if want := vec(2000, 1024, 1); v != want {
		t.Errorf("FromMap = %v, want %v", v, want)
	}
	m := r.ToMap(v)
	if want := map[string]int64{"vcore": 2000, "memory": 1024, "pods": 1}; !maps.Equal(m, want) {
		t.Errorf("ToMap = %v, want %v", m, want)
	}
	if got := r.ToMap(Vector{}); got == nil || len(got) != 0 {
		t.Errorf("ToMap(zero) = %#v, want an empty map", got)
	}
	if got := r.ToMap(vec(0, 0, 0, 0, 0, 0, 0, 0, 0, 9)); len(got) != 0 {
		t.Errorf("ToMap kept an index nothing is interned at: %v", got)
	}
	if v, err := r.FromMap(nil); err != nil || !v.IsZero() {
		t.Errorf("FromMap(nil) = %v, %v", v, err)
	}
}

// A node's whole allocatable, with its entries at 0 (hugepages, devices
// the node does not have), fits a registry with room for its other types
// only: the zeros use up none (reference: zero quantities are pruned).
func TestFromMapZerosTakeNoType(t *testing.T) {
	r := NewRegistry()
	for i := r.Len(); i < MaxTypes-1; i++ {
		if _, err := r.FromMap(map[string]int64{fmt.Sprint("t", i): 1}); err != nil {
			t.Fatal(err)
		}
	}
	m := map[string]int64{"vcore": 1000, "gpu": 2}
	for i := range 20 {
		m[fmt.Sprint("hugepages-", i)] = 0
	}
	v, err := r.FromMap(m)
	if err != nil {
		t.Fatalf("FromMap with zero entries: %v", err)
	}
	if r.Len() != MaxTypes {
		t.Errorf("%d types interned, want %d", r.Len(), MaxTypes)
	}
	if got := r.ToMap(v); len(got) != 2 || got["gpu"] != 2 || got["vcore"] != 1000 {
		t.Errorf("ToMap = %v, want vcore and gpu", got)
	}
	if _, err := r.FromMap(map[string]int64{"another": 1}); err == nil {
		t.Errorf("a type past the limit was accepted")
	}
}

func TestFromMapErrors(t *testing.T) {
	full := NewRegistry()
	for i := full.Len(); i < MaxTypes; i++ {
		if _, err := full.Intern(fmt.Sprintf("r%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		r       *Registry
		m       map[string]int64
		mention string
	}{
		{"negative", NewRegistry(), map[string]int64{"vcore": 1, "gpu": -1, "zzz": -2}, `"gpu"`},
		{"negative known", NewRegistry(), map[string]int64{"memory": -5}, `"memory"`},
		{"empty name", NewRegistry(), map[string]int64{"": 1}, "empty"},
		{"too many types", full, map[string]int64{"r3": 1, "extra": 1}, `"extra"`},
	}
	for _, tc := range tests {
		before := tc.r.Names()
		if _, err := tc.r.FromMap(tc.m); err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("%s: FromMap error = %v, want one mentioning %s", tc.name, err, tc.mention)
		}
		if _, err := tc.r.QuotaFromMap(tc.m); err == nil {
			t.Errorf("%s: QuotaFromMap accepted bad input", tc.name)
		}
		if after := tc.r.Names(); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("%s: rejected input changed the registry: %v -> %v", tc.name, before, after)
		}
	}
}

func TestQuotaFromMap(t *testing.T) {
	r := NewRegistry()
	q, err := r.QuotaFromMap(map[string]int64{"memory": 0, "vcore": 4000})
	if err != nil {
		t.Fatal(err)
	}
	want := Quota{}.With(VCoreIndex, 4000).With(MemoryIndex, 0)
	if q != want {
		t.Errorf("QuotaFromMap = %+v, want %+v", q, want)
	}
	if q.Allows(vec(1, 1)) {
		t.Error("memory 0 in a max map does not make memory unavailable")
	}
	if m := r.QuotaToMap(q); !maps.Equal(m, map[string]int64{"memory": 0, "vcore": 4000}) {
		t.Errorf("QuotaToMap = %v", m)
	}
	if q, err := r.QuotaFromMap(map[string]int64{}); err != nil || !q.IsUnlimited() {
		t.Errorf("QuotaFromMap(empty) = %+v, %v; want unlimited", q, err)
	}
}

func TestFormat(t *testing.T) {
	r := NewRegistry()
	gpu, err := r.Intern("nvidia.com/gpu")
	if err != nil {
		t.Fatal(err)
	}
	var v Vector
	v[VCoreIndex], v[MemoryIndex], v[gpu] = 2000, 1024, 1
	tests := []struct {
		got, want string
	}{
		{r.Format(v), "{memory:1024 nvidia.com/gpu:1 vcore:2000}"},
		{r.Format(Vector{}), "{}"},
		{r.Format(vec(0, 0, 0, 0, 0, 5)), "{#5:5}"},
		{r.FormatQuota(Quota{}.With(MemoryIndex, 0).With(VCoreIndex, 10)), "{memory:0 vcore:10}"},
		{r.FormatQuota(Quota{}), "{}"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
