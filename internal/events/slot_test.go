package events

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/resource"
)

// The ring gives back every record as appended: each field, and vectors
// of no, one, a few (packed) and many quantities (kept whole), negative
// and extreme quantities and the last type included.
func TestRingKeepsRecordsWhole(t *testing.T) {
	reg := resource.NewRegistry()
	vec := func(kv map[int]int64) resource.Vector {
		var v resource.Vector
		for i, q := range kv {
			v[i] = q
		}
		return v
	}
	recs := []event.Record{
		{Type: event.App, Change: event.Add, Detail: event.AppNew, ObjectID: "app-1", Time: 1},
		{Type: event.Node, Change: event.Add, Detail: event.NodeAlloc, ObjectID: "node-1", ReferenceID: "alloc-1",
			Resource: vec(map[int]int64{0: 1000, 1: 1 << 30}), Time: 2},
		{Type: event.Request, Message: "Unschedulable request 'x'", ObjectID: "x", ReferenceID: "app-1",
			Resource: vec(map[int]int64{0: 1, 5: -7, resource.MaxTypes - 1: resource.MaxQuantity}), Time: -3},
		{Type: event.Queue, Change: event.Set, Detail: event.QueueMax, ObjectID: "root",
			Resource: vec(map[int]int64{0: 1, 1: 2, 2: 3, 9: 4, resource.MaxTypes - 1: 5})},
		{Type: event.UserGroup, Change: event.Remove, Detail: event.GroupResource, ObjectID: "g", ReferenceID: "root.a",
			Resource: vec(map[int]int64{3: 1 << 62})},
	}
	for _, every := range []bool{false, true} {
		r := NewRing(len(recs))
		if every { // a full ring overwrites its slots
			for i := range 2 * len(recs) {
				r.Append(rec(i))
			}
		}
		for i := range recs {
			r.AppendFrom(reg, &recs[i])
		}
		_, _, got := r.Range(0, len(recs)+1)
		if len(got) != len(recs) {
			t.Fatalf("%d records back, want %d", len(got), len(recs))
		}
		for i, e := range got {
			if e.Registry != reg {
				t.Errorf("record %d: registry not kept", i)
			}
			if d := cmp.Diff(recs[i], e.Record); d != "" {
				t.Errorf("record %d (ring full %v) differs (-appended +read):\n%s", i, every, d)
			}
		}
	}
}
