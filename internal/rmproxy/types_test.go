package rmproxy

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/resource"
)

// TestResourceTypesPerRM is issue #18 item 2: an RM that invents resource
// types up to its limit blocks only itself. Another RM's new types are
// accepted, and the request past the limit is rejected with a reason and
// changes nothing else.
func TestResourceTypesPerRM(t *testing.T) {
	s := NewManual(clock.NewVirtual(time.Unix(1000, 0)))
	defer s.Stop()
	// event records are named by their RM's registry
	named := map[string]string{}
	s.SetHooks(Hooks{Event: func(rmID string, reg *resource.Registry, r *event.Record) {
		if r.Type == event.Node && r.Resource.AnyPositive() {
			named[rmID+"/"+r.ObjectID] = reg.Format(r.Resource)
		}
	}})
	greedy, other := newRecorder(), newRecorder()
	for id, rec := range map[string]*recorder{"greedy": greedy, "other": other} {
		if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: id, Config: cfg}, rec); err != nil {
			t.Fatal(err)
		}
	}
	invented := &si.Resource{Resources: map[string]*si.Quantity{}}
	for i := range 14 { // vcore and memory make 16
		invented.Resources[fmt.Sprint("invented-", i)] = &si.Quantity{Value: 1}
	}
	s.UpdateNode(&si.NodeRequest{RmID: "greedy", Nodes: []*si.NodeInfo{
		{NodeID: "g1", Action: si.NodeInfo_CREATE, SchedulableResource: invented},
		{NodeID: "g2", Action: si.NodeInfo_CREATE, SchedulableResource: &si.Resource{Resources: map[string]*si.Quantity{"one-more": {Value: 1}}}},
	}})
	gpu := &si.Resource{Resources: map[string]*si.Quantity{"nvidia.com/gpu": {Value: 8}, "vcore": {Value: 4000}}}
	s.UpdateNode(&si.NodeRequest{RmID: "other", Nodes: []*si.NodeInfo{
		{NodeID: "o1", Action: si.NodeInfo_CREATE, SchedulableResource: gpu},
	}})
	s.Cycle()

	greedy.mu.Lock()
	if fmt.Sprint(greedy.accNodes) != "[g1]" {
		t.Errorf("greedy: accepted %v, want [g1]", greedy.accNodes)
	}
	if len(greedy.rejNodes) != 1 || greedy.rejNodes[0].NodeID != "g2" ||
		!strings.Contains(greedy.rejNodes[0].Reason, `cannot add resource types ["one-more"]: the limit of 16 resource types would be exceeded`) {
		t.Errorf("greedy: rejected %v, want g2 with the limit as reason", greedy.rejNodes)
	}
	greedy.mu.Unlock()
	other.mu.Lock()
	if fmt.Sprint(other.accNodes) != "[o1]" || len(other.rejNodes) != 0 {
		t.Errorf("other: accepted %v, rejected %v; want o1 accepted: one RM's types must not count against another's", other.accNodes, other.rejNodes)
	}
	other.mu.Unlock()

	if !strings.Contains(named["other/o1"], "nvidia.com/gpu") || !strings.Contains(named["greedy/g1"], "invented-0") {
		t.Errorf("node events named %v: want o1 with nvidia.com/gpu, g1 with invented-0", named)
	}
	snap, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ rm, node, name string }{{"greedy", "g1", "invented-13"}, {"other", "o1", "nvidia.com/gpu"}} {
		var found bool
		for _, p := range snap.Partitions {
			if p.RMID != tc.rm {
				continue
			}
			n, ok := p.Node(tc.node)
			if !ok {
				t.Fatalf("%s: node %s missing from the snapshot", tc.rm, tc.node)
			}
			found = p.Map(n.Capacity)[tc.name] > 0
		}
		if !found {
			t.Errorf("%s: node %s capacity in the snapshot lacks %s", tc.rm, tc.node, tc.name)
		}
	}

	// a lower limit applies to RMs registered from then on
	s.SetTypeLimit(3)
	small := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "small", Config: cfg}, small); err != nil {
		t.Fatal(err)
	}
	s.UpdateNode(&si.NodeRequest{RmID: "small", Nodes: []*si.NodeInfo{
		{NodeID: "s1", Action: si.NodeInfo_CREATE, SchedulableResource: gpu},
		{NodeID: "s2", Action: si.NodeInfo_CREATE, SchedulableResource: &si.Resource{Resources: map[string]*si.Quantity{"fpga": {Value: 1}}}},
	}})
	s.UpdateNode(&si.NodeRequest{RmID: "other", Nodes: []*si.NodeInfo{
		{NodeID: "o2", Action: si.NodeInfo_CREATE, SchedulableResource: &si.Resource{Resources: map[string]*si.Quantity{"fpga": {Value: 1}}}},
	}})
	s.Cycle()
	small.mu.Lock()
	if fmt.Sprint(small.accNodes) != "[s1]" || len(small.rejNodes) != 1 ||
		!strings.Contains(small.rejNodes[0].Reason, "the limit of 3 resource types would be exceeded") {
		t.Errorf("small: accepted %v, rejected %v; want s1 accepted and s2 rejected at the limit of 3", small.accNodes, small.rejNodes)
	}
	small.mu.Unlock()
	other.mu.Lock()
	if fmt.Sprint(other.accNodes) != "[o1 o2]" {
		t.Errorf("other: accepted %v, want [o1 o2]: its limit was set at its registration", other.accNodes)
	}
	other.mu.Unlock()
}
