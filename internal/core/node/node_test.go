package node

import (
	"testing"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

func TestInstanceType(t *testing.T) {
	for _, tc := range []struct {
		attrs map[string]string
		want  string
	}{
		{nil, app.UnknownInstanceType},
		{map[string]string{"zone": "z1"}, app.UnknownInstanceType},
		{map[string]string{InstanceTypeLabel: "m5.large"}, "m5.large"},
		{map[string]string{InstanceTypeAttribute: "c6i.xlarge", InstanceTypeLabel: "m5.large"}, "c6i.xlarge"},
	} {
		n := New("n1", resource.Vector{}, tc.attrs)
		if n.InstanceType != tc.want {
			t.Errorf("attributes %v: instance type %q, want %q", tc.attrs, n.InstanceType, tc.want)
		}
		x := &app.Allocation{Key: "a"}
		n.AddAlloc(x)
		if x.InstanceType != tc.want {
			t.Errorf("attributes %v: allocation instance type %q, want %q", tc.attrs, x.InstanceType, tc.want)
		}
	}
}
