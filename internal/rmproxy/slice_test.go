package rmproxy

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/engine"
)

// watcher is a recorder that notes, when it first hears of an
// allocation, how many allocations another RM's recorder had heard of.
type watcher struct {
	*recorder
	other *recorder
	seen  atomic.Int64 // -1 until the first allocation
}

func (w *watcher) UpdateAllocation(resp *si.AllocationResponse) error {
	if len(resp.New) > 0 && w.seen.Load() < 0 {
		w.other.mu.Lock()
		w.seen.Store(int64(len(w.other.allocs)))
		w.other.mu.Unlock()
	}
	return w.recorder.UpdateAllocation(resp)
}

// One RM's long pass does not hold another RM's asks until it ends: the
// pass gives way after PassSlice to the partitions with work and to the
// requests waiting (the reference schedules its partitions in turn), and
// goes on after. Before, RM b's ask, sent once RM a's pass of 60,000
// allocations had begun, was placed after all of them (1.5 s at 300,000).
func TestLongPassGivesWay(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	a := newRecorder()
	b := &watcher{recorder: newRecorder(), other: a}
	b.seen.Store(-1)
	for id, cb := range map[string]api.ResourceManagerCallback{"a": a, "b": b} {
		if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: id, Config: cfg}, cb); err != nil {
			t.Fatal(err)
		}
		_ = s.UpdateApplication(&si.ApplicationRequest{RmID: id, New: []*si.AddApplicationRequest{
			{ApplicationID: "app", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "u"}}}})
	}
	_ = s.UpdateNode(&si.NodeRequest{RmID: "b", Nodes: []*si.NodeInfo{{NodeID: "bn", Action: si.NodeInfo_CREATE, SchedulableResource: res(10, 1<<30)}}})
	// a's asks wait for nodes, taken in before they come: the nodes
	// start one pass over all of them
	const total = 60_000
	for i := 0; i < total; i += 1000 {
		xs := make([]*si.Allocation, 0, 1000)
		for j := i; j < i+1000; j++ {
			xs = append(xs, &si.Allocation{AllocationKey: fmt.Sprint("k", j), ApplicationID: "app", ResourcePerAlloc: res(1, 1)})
		}
		_ = s.UpdateAllocation(&si.AllocationRequest{RmID: "a", Allocations: xs})
	}
	var nodes []*si.NodeInfo
	for i := range 1000 {
		nodes = append(nodes, &si.NodeInfo{NodeID: fmt.Sprint("n", i), Action: si.NodeInfo_CREATE, SchedulableResource: res(100, 1<<40)})
	}
	_ = s.Inspect(func(*engine.Engine) {}) // a's asks are in
	_ = s.UpdateNode(&si.NodeRequest{RmID: "a", Nodes: nodes})
	a.await(t, "a's pass under way", func() bool { return len(a.allocs) >= 100 })
	_ = s.UpdateAllocation(&si.AllocationRequest{RmID: "b", Allocations: []*si.Allocation{{AllocationKey: "b1", ApplicationID: "app", ResourcePerAlloc: res(1, 1)}}})
	b.await(t, "b's allocation", func() bool { return len(b.allocs) == 1 })
	a.await(t, "all of a's allocations", func() bool { return len(a.allocs) == total })
	if seen := b.seen.Load(); seen >= total/2 {
		t.Errorf("b's ask was placed once a had heard of %d of its %d allocations: it waited for a's pass", seen, total)
	}
	var yields uint64
	_ = s.Inspect(func(e *engine.Engine) {
		p, err := e.Partition("a", "default")
		if err != nil {
			t.Error(err)
			return
		}
		yields = p.Stats.Yields
	})
	t.Logf("b placed when a had heard of %d of %d; a gave way %d times", b.seen.Load(), total, yields)
	if yields == 0 {
		t.Error("a's pass never gave way")
	}
	// nothing lost or placed twice
	keys := map[string]bool{}
	for _, x := range a.allocs {
		keys[x.AllocationKey] = true
	}
	if len(keys) != total {
		t.Errorf("a heard of %d distinct allocations in %d, want %d", len(keys), len(a.allocs), total)
	}
}
