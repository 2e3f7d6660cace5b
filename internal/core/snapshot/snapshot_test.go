package snapshot

import (
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

func TestBuildCopiesState(t *testing.T) {
	e := scaled(t, 10, 4, 40, 2)
	var b Builder
	s := b.Build(e, Inputs{Generation: 7, Now: time.Unix(5, 0), RMs: map[string]RMInfo{"rm": {BuildInfo: map[string]string{"v": "1"}}}})
	if s.Generation != 7 || len(s.RMs) != 1 || s.RMs[0].BuildInfo["v"] != "1" || len(s.RMs[0].ConfigYAML) == 0 {
		t.Fatalf("header wrong: %+v", s.RMs[0])
	}
	p, ok := s.Partition("DEFAULT")
	if !ok || p.Allocations != 40 || len(p.Nodes) != 10 || len(p.Apps) != 4 {
		t.Fatalf("partition: ok=%v allocations=%d nodes=%d apps=%d", ok, p.Allocations, len(p.Nodes), len(p.Apps))
	}
	for _, n := range p.Nodes {
		if len(n.Allocations) != 4 {
			t.Errorf("node %s has %d allocations, want 4", n.ID, len(n.Allocations))
		}
		for _, x := range n.Allocations {
			a, _ := p.App(x.AppID)
			found := false
			for _, y := range a.Allocations {
				found = found || y == x
			}
			if !found {
				t.Errorf("allocation %s on node %s is not its application's record", x.Key, n.ID)
			}
		}
	}
	a := p.Apps[0]
	if len(a.Asks) != 2 || a.Asks[0].Why.Kind != app.NoNodeFits {
		t.Errorf("asks of %s: %d, first reason %v", a.ID, len(a.Asks), a.Asks[0].Why)
	}
	if q, ok := p.Queue("ROOT.A"); !ok || q.Parent != "root" || !q.Leaf || len(q.Apps) != 1 {
		t.Errorf("queue root.a: %+v", q)
	}
	if p.Root.Allocated != p.Root.Children[0].Allocated.Add(p.Root.Children[1].Allocated).Add(p.Root.Children[2].Allocated).Add(p.Root.Children[3].Allocated) {
		t.Error("root allocation is not the sum of its children")
	}
	// the names table converts vectors
	if m := p.Map(a.Allocated); m["vcore"] != 10000 || m["memory"] != 10<<30 {
		t.Errorf("map of %v = %v", a.Allocated, m)
	}
}

func TestPartitionOrder(t *testing.T) {
	e := engine.New()
	two := `
partitions:
  - name: zeta
    queues: [{name: root, queues: [{name: a}]}]
  - name: alpha
    queues: [{name: root, queues: [{name: a}]}]
  - name: default
    queues: [{name: root, queues: [{name: a}]}]
`
	for _, id := range []string{"rm2", "rm1"} {
		if err := e.RegisterRM(id, "", two, nil); err != nil {
			t.Fatal(err)
		}
	}
	var b Builder
	s := b.Build(e, Inputs{})
	var got []string
	for _, p := range s.Partitions {
		got = append(got, p.Name+"/"+p.RMID)
	}
	// within a name, the RM that registered first comes first, whatever
	// its ID: a later RM never takes a bare partition name over
	want := []string{"default/rm2", "default/rm1", "alpha/rm2", "alpha/rm1", "zeta/rm2", "zeta/rm1"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %v, want %v", got, want)
		}
	}
}
