package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseProperties(t *testing.T) {
	p, err := ParseProperties(nil)
	if err != nil || p != DefaultProperties() {
		t.Fatalf("ParseProperties(nil) = %+v, %v", p, err)
	}
	p, err = ParseProperties(map[string]string{
		PropSortPolicy: " Fair ", PropPriorityOffset: "-2147483648", PropUnschedAsksBackoffDelay: "1m30s",
		PropQuotaPreemptionDelay: "0", "unknown.key": "x",
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.SortPolicy != SortFair || p.PriorityOffset != -2147483648 || p.UnschedAsksBackoffDelay != 90*time.Second || p.QuotaPreemptionDelay != 0 {
		t.Errorf("properties = %+v", p)
	}
	p, err = ParseProperties(map[string]string{PropSortPolicy: "bogus", PropPriorityOffset: "1.5", PropPreemptionDelay: "10s"})
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{PropSortPolicy + ": invalid value \"bogus\"", PropPriorityOffset + ": invalid value \"1.5\""} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if p.SortPolicy != SortFIFO || p.PreemptionDelay != 10*time.Second {
		t.Errorf("bad values must keep defaults, good ones apply: %+v", p)
	}
}

func TestInheritProperties(t *testing.T) {
	cases := []struct {
		name        string
		parent, own map[string]string
		want        map[string]string
	}{
		{"nothing", nil, nil, nil},
		{"inherited keys copied", map[string]string{PropSortPolicy: "fair", PropPreemptionDelay: "1m", PropQuotaPreemptionDelay: "5m", "custom": "v"}, nil,
			map[string]string{PropSortPolicy: "fair", PropPreemptionDelay: "1m", PropQuotaPreemptionDelay: "5m", "custom": "v"}},
		{"priority keys not inherited", map[string]string{PropPriorityPolicy: "fence", PropPriorityOffset: "4"}, nil, nil},
		{"fair-share keys not inherited", map[string]string{PropFairSharePreemption: "enabled", PropFairShareWeight: "3"}, nil, nil},
		{"fence preemption not inherited", map[string]string{PropPreemptionPolicy: "fence"}, nil, nil},
		{"disabled preemption inherited", map[string]string{PropPreemptionPolicy: "Disabled"}, nil, map[string]string{PropPreemptionPolicy: "Disabled"}},
		{"own overrides", map[string]string{PropSortPolicy: "fair", PropPreemptionPolicy: "disabled"}, map[string]string{PropSortPolicy: "fifo", PropPreemptionPolicy: "fence"},
			map[string]string{PropSortPolicy: "fifo", PropPreemptionPolicy: "fence"}},
	}
	for _, tc := range cases {
		if d := cmp.Diff(tc.want, InheritProperties(tc.parent, tc.own)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

func TestParseQuantities(t *testing.T) {
	q, err := ParseQuantities(map[string]string{"vcore": "250m", "memory": "1Mi", "pods": "1k"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Quantities{"vcore": 250, "memory": 1 << 20, "pods": 1000}, q); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if q, err := ParseQuantities(nil); q != nil || err != nil {
		t.Errorf("ParseQuantities(nil) = %v, %v", q, err)
	}
	if _, err := ParseQuantities(map[string]string{"memory": "-1"}); err == nil || !strings.Contains(err.Error(), "memory: negative") {
		t.Errorf("negative: err = %v", err)
	}
}

func TestFormatQuantity(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    int64
		want string
	}{{"vcore", 2000, "2"}, {"vcore", 1500, "1500m"}, {"memory", 3 << 30, "3Gi"}, {"memory", 1000, "1000"}, {"pods", 0, "0"}} {
		if got := FormatQuantity(tc.name, tc.v); got != tc.want {
			t.Errorf("FormatQuantity(%s, %d) = %q, want %q", tc.name, tc.v, got, tc.want)
		}
	}
}

// TestFairShareProperties: Paddock's fair-share keys parse, keep their
// defaults when absent or bad, and reject what is not a positive weight.
func TestFairShareProperties(t *testing.T) {
	p, err := ParseProperties(map[string]string{PropFairSharePreemption: " Enabled ", PropFairShareWeight: "2.5"})
	if err != nil || !p.FairSharePreemption || p.FairShareWeight != 2.5 {
		t.Fatalf("properties = %+v, %v", p, err)
	}
	if d := DefaultProperties(); d.FairSharePreemption || d.FairShareWeight != 1 {
		t.Fatalf("defaults = %+v", d)
	}
	for _, bad := range []map[string]string{
		{PropFairSharePreemption: "on"}, {PropFairShareWeight: "0"}, {PropFairShareWeight: "-1"},
		{PropFairShareWeight: "NaN"}, {PropFairShareWeight: "Inf"}, {PropFairShareWeight: "1e7"}, {PropFairShareWeight: "x"},
	} {
		p, err := ParseProperties(bad)
		if err == nil {
			t.Errorf("%v: want an error", bad)
		}
		if p.FairSharePreemption || p.FairShareWeight != 1 {
			t.Errorf("%v: a bad value must keep the default: %+v", bad, p)
		}
	}
}
