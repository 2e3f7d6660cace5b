package engine

import (
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/partition"
	"github.com/paddock-sched/paddock/internal/resource"
)

// An RM's placement function reaches its partitions present and future
// (one a configuration update adds), as its predicate does, and only
// that RM's.
func TestOnPlacedReachesEveryPartition(t *testing.T) {
	const one = `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
`
	const two = one + `  - name: second
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
`
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := New()
	for _, rm := range []string{"rm", "other"} {
		if err := e.RegisterRM(rm, "", one, nil); err != nil {
			t.Fatal(err)
		}
	}
	calls := 0
	e.SetOnPlaced("rm", func() { calls++ })
	if err := e.UpdateConfig("rm", two, nil, now); err != nil {
		t.Fatal(err)
	}
	place := func(rmID, name, key string) {
		t.Helper()
		p, err := e.Partition(rmID, name)
		if err != nil {
			t.Fatal(err)
		}
		var v resource.Vector
		v[resource.VCoreIndex], v[resource.MemoryIndex] = 1000, 1<<20
		if _, ok := p.Node("n-" + key); !ok {
			if err := p.AddNode("n-"+key, v, resource.Vector{}, nil, true); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.AddApp(partition.AppRequest{ID: "app-" + key, Queue: "root.a", User: "u"}, now); err != nil {
			t.Fatal(err)
		}
		if err := p.AddAsk(&app.Allocation{Key: key, AppID: "app-" + key, Res: v}, now); err != nil {
			t.Fatal(err)
		}
	}
	place("rm", "default", "a")
	place("rm", "second", "b")
	place("other", "default", "c")
	if made := e.Step(now); made != 3 {
		t.Fatalf("made %d allocations, want 3", made)
	}
	if calls != 2 {
		t.Fatalf("placement function called %d times, want 2 (rm's two partitions, not other's)", calls)
	}
}
