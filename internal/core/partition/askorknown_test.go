package partition

import (
	"fmt"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

// AddAskOrKnown does what looking the key up (App, Allocation) and then
// calling AddAsk for an unknown key does: the same known asks, the same
// rejections with the same reasons, the same state.
func TestAddAskOrKnown(t *testing.T) {
	setup := func() *Partition {
		p := mustPartition(t, twoQueues)
		p.AddNode("n0", vec(8000, 1<<30), resource.Vector{}, nil, true)
		for _, id := range []string{"app1", "app2", "gone"} {
			if err := p.AddApp(AppRequest{ID: id, Queue: "root.b", User: "u"}, t0); err != nil {
				t.Fatal(err)
			}
		}
		p.AddAsk(&app.Allocation{Key: "g1", AppID: "gone", Res: vec(1000, 1)}, t0)
		p.AddAsk(&app.Allocation{Key: "p1", AppID: "app2", Res: vec(1000, 1)}, t0)
		if got := p.Schedule(t0); got != 2 {
			t.Fatalf("allocated %d, want 2", got)
		}
		// gone completes and is done: its one allocation released, the
		// completing time passes
		p.Release("gone", "g1", t0)
		p.Tick(t0.Add(CompletingTimeout + time.Second))
		p.Out.Take()
		return p
	}
	asks := []app.Allocation{
		{Key: "k1", AppID: "app1", Res: vec(1000, 1)},
		{Key: "k1", AppID: "app1", Res: vec(2000, 1)}, // known pending
		{Key: "k2", AppID: "app1"},                    // empty
		{Key: "k3", AppID: "app1", Res: vec(-1, 1)},   // negative
		{Key: "p1", AppID: "app2", Res: vec(500, 1)},  // known allocation
		{Key: "g1", AppID: "gone", Res: vec(1000, 1)}, // released, of a done application
		{Key: "g2", AppID: "gone", Res: vec(1000, 1)}, // new, of a done application
		{Key: "k4", AppID: "nobody", Res: vec(1, 1)},  // unknown application
		{Key: "k5", AppID: "app2", Res: vec(1, 1)},
	}
	folded, looked := setup(), setup()
	if _, ok := folded.App("gone"); !ok || folded.AppCount() != 2 {
		t.Fatalf("the application gone is not done: %d live", folded.AppCount())
	}
	for i := range asks {
		x, y := asks[i], asks[i]
		gotKnown, gotErr := folded.AddAskOrKnown(&x, app.HashKey(x.Key), t0)
		var wantKnown *app.Allocation
		var wantErr error
		if a, ok := looked.App(y.AppID); ok {
			wantKnown, _ = a.Allocation(y.Key)
		}
		if wantKnown == nil {
			wantErr = looked.AddAsk(&y, t0)
		}
		if (gotKnown == nil) != (wantKnown == nil) || gotKnown != nil && (gotKnown.Key != wantKnown.Key || gotKnown.Res != wantKnown.Res) {
			t.Errorf("%s/%s: known %v, want %v", x.AppID, x.Key, gotKnown, wantKnown)
		}
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%s/%s: error %v, want %v", x.AppID, x.Key, gotErr, wantErr)
		}
	}
	got, want := folded.Out.Take(), looked.Out.Take()
	if fmt.Sprint(got.RejectedAllocs) != fmt.Sprint(want.RejectedAllocs) || len(got.RejectedAllocs) != 5 {
		t.Errorf("rejections\n%v\nwant 5:\n%v", got.RejectedAllocs, want.RejectedAllocs)
	}
	for _, id := range []string{"app1", "app2"} {
		a, _ := folded.App(id)
		b, _ := looked.App(id)
		if a.PendingCount() != b.PendingCount() || a.State != b.State {
			t.Errorf("%s: pending %d %s, want %d %s", id, a.PendingCount(), a.State, b.PendingCount(), b.State)
		}
	}
	if err := folded.Verify(); err != nil {
		t.Error(err)
	}
}
