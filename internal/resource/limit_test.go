package resource

import (
	"math"
	"strings"
	"testing"
)

func TestFromMapRejectsAboveMaxQuantity(t *testing.T) {
	r := NewRegistry()
	if _, err := r.FromMap(map[string]int64{"gpu": MaxQuantity}); err != nil {
		t.Fatalf("MaxQuantity rejected: %v", err)
	}
	_, err := r.FromMap(map[string]int64{"gpu": 1, "fpga": MaxQuantity + 1})
	if err == nil || !strings.Contains(err.Error(), `resource "fpga": quantity 2305843009213693953 is above the maximum`) {
		t.Fatalf("err = %v, want fpga above the maximum", err)
	}
	if _, ok := r.Index("fpga"); ok {
		t.Error("a rejected map interned its names")
	}
}

func TestQuotaFromMapSaturates(t *testing.T) {
	r := NewRegistry()
	q, err := r.QuotaFromMap(map[string]int64{"memory": math.MaxInt64, "vcore": 5})
	if err != nil {
		t.Fatal(err)
	}
	m := r.QuotaToMap(q)
	if m["memory"] != MaxQuantity || m["vcore"] != 5 {
		t.Errorf("quota %v, want memory saturated at MaxQuantity and vcore 5", m)
	}
}

func TestAbove(t *testing.T) {
	var total, old, add Vector
	total[1], add[1] = MaxQuantity-10, 10
	if _, over := total.Above(old, add); over {
		t.Error("a total reaching MaxQuantity exactly is above")
	}
	add[1] = 11
	if i, over := total.Above(old, add); !over || i != 1 {
		t.Errorf("Above = %d, %v; want 1, true", i, over)
	}
	old[1] = 1 // what leaves the total makes room
	if _, over := total.Above(old, add); over {
		t.Error("old is not deducted")
	}
	total, old, add = Vector{}, Vector{}, Vector{}
	add[3] = math.MaxInt64
	if _, over := total.Above(old, add); !over {
		t.Error("an add above MaxQuantity is not above")
	}
	total[3] = 2 * MaxQuantity // a sum of two totals
	add[3] = MaxQuantity
	if i, over := total.Above(old, add); !over || i != 3 {
		t.Errorf("Above = %d, %v for an overflowing sum; want 3, true", i, over)
	}
}
