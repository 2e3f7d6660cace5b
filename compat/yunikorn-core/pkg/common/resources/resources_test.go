package resources

import "testing"

func TestToProto(t *testing.T) {
	r := NewResourceFromMap(map[string]int64{"vcore": 1500, "memory": 1 << 30})
	p := r.ToProto()
	if len(p.Resources) != 2 || p.Resources["vcore"].GetValue() != 1500 || p.Resources["memory"].GetValue() != 1<<30 {
		t.Errorf("ToProto = %v", p)
	}
	var none *Resource
	if p := none.ToProto(); p == nil || len(p.Resources) != 0 {
		t.Errorf("nil ToProto = %v", p)
	}
	c := r.Clone()
	c.Resources["vcore"] = 1
	if r.Resources["vcore"] != 1500 {
		t.Error("Clone shares its map")
	}
}
