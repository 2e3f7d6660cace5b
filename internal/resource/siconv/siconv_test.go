package siconv

import (
	"strings"
	"testing"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/resource"
)

func res(kv map[string]int64) *si.Resource {
	out := &si.Resource{Resources: map[string]*si.Quantity{}}
	for k, v := range kv {
		out.Resources[k] = &si.Quantity{Value: v}
	}
	return out
}

func TestVectorRoundTrip(t *testing.T) {
	r := resource.NewRegistry()
	in := res(map[string]int64{"vcore": 1500, "memory": 1 << 30, "pods": 1, "nvidia.com/gpu": 0})
	v, err := Vector(r, in)
	if err != nil {
		t.Fatal(err)
	}
	pods, ok := r.Index("pods")
	if !ok {
		t.Fatal("pods was not interned")
	}
	if v[resource.VCoreIndex] != 1500 || v[resource.MemoryIndex] != 1<<30 || v[pods] != 1 {
		t.Errorf("Vector = %s", r.Format(v))
	}
	back, err := Resource(r, v)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"vcore": 1500, "memory": 1 << 30, "pods": 1}
	if len(back.Resources) != len(want) {
		t.Errorf("Resource = %v, want %v", back, want)
	}
	for k, x := range want {
		if q := back.Resources[k]; q == nil || q.Value != x {
			t.Errorf("Resource[%q] = %v, want %d", k, q, x)
		}
	}
	if v, err := Vector(r, &si.Resource{}); err != nil || !v.IsZero() {
		t.Errorf("Vector(empty) = %v, %v; want zero", v, err)
	}
	if out, err := Resource(r, resource.Vector{}); err != nil || out == nil || len(out.Resources) != 0 {
		t.Errorf("Resource(zero) = %v, %v; want an empty message", out, err)
	}
}

func TestVectorErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      *si.Resource
		mention string
	}{
		{"nil message", nil, "nil"},
		{"nil quantity", &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: 1}, "gpu": nil, "x": nil}}, `"gpu"`},
		{"negative", res(map[string]int64{"memory": 5, "fpga": -1}), `"fpga"`},
	}
	for _, tc := range tests {
		r := resource.NewRegistry()
		before := r.Len()
		if _, err := Vector(r, tc.in); err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("%s: Vector error = %v, want one mentioning %s", tc.name, err, tc.mention)
		}
		if _, err := Quota(r, tc.in); err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("%s: Quota error = %v, want one mentioning %s", tc.name, err, tc.mention)
		}
		if r.Len() != before {
			t.Errorf("%s: rejected message interned names", tc.name)
		}
	}
}

func TestVectorTooManyTypes(t *testing.T) {
	r := resource.NewRegistry()
	kv := map[string]int64{}
	for i := 0; i < resource.MaxTypes; i++ {
		kv["t"+string(rune('a'+i))] = 1
	}
	if _, err := Vector(r, res(kv)); err == nil {
		t.Fatalf("a message with %d new types was accepted", len(kv))
	}
	if r.Len() != 2 {
		t.Errorf("registry grew to %d on a rejected message", r.Len())
	}
}

func TestQuota(t *testing.T) {
	r := resource.NewRegistry()
	q, err := Quota(r, res(map[string]int64{"vcore": 4000, "memory": 0}))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := q.Limit(resource.MemoryIndex); !ok || n != 0 {
		t.Errorf("memory limit = %d, %v; want 0, true", n, ok)
	}
	if n, ok := q.Limit(resource.VCoreIndex); !ok || n != 4000 {
		t.Errorf("vcore limit = %d, %v; want 4000, true", n, ok)
	}
	if got := q.Mask(); got != 1<<resource.VCoreIndex|1<<resource.MemoryIndex {
		t.Errorf("mask = %b", got)
	}
}

func TestResourceErrors(t *testing.T) {
	r := resource.NewRegistry()
	var neg resource.Vector
	neg[resource.MemoryIndex] = -1
	if _, err := Resource(r, neg); err == nil || !strings.Contains(err.Error(), `"memory"`) {
		t.Errorf("negative: error = %v, want one naming memory", err)
	}
	var unnamed resource.Vector
	unnamed[9] = 3
	if _, err := Resource(r, unnamed); err == nil || !strings.Contains(err.Error(), "index 9") {
		t.Errorf("unnamed index: error = %v", err)
	}
}

func TestVectorFastPathAllocatesNothing(t *testing.T) {
	r := resource.NewRegistry()
	res := &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: 1000}, "memory": {Value: 1 << 30}}}
	if n := testing.AllocsPerRun(100, func() {
		if _, err := Vector(r, res); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("Vector allocates %v times per call", n)
	}
}

// A quantity above resource.MaxQuantity is rejected whether or not its
// name is known (the allocation-free path checks it too).
func TestVectorAboveMaxQuantity(t *testing.T) {
	r := resource.NewRegistry()
	if _, err := Vector(r, res(map[string]int64{"gpu": 1})); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"gpu", "fpga"} {
		_, err := Vector(r, res(map[string]int64{name: resource.MaxQuantity + 1}))
		if err == nil || !strings.Contains(err.Error(), "above the maximum") {
			t.Errorf("%s: err = %v, want above the maximum", name, err)
		}
	}
	// a max is saturated, not rejected
	q, err := Quota(r, res(map[string]int64{"gpu": 1 << 62}))
	if err != nil {
		t.Fatal(err)
	}
	gi, _ := r.Index("gpu")
	if lim, _ := q.Limit(gi); lim != resource.MaxQuantity {
		t.Errorf("quota limit %d, want MaxQuantity", lim)
	}
}
