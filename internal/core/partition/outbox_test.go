package partition

import (
	"testing"

	"github.com/paddock-sched/paddock/internal/core/app"
)

// TestOutboxReset empties every list, clears the entries of the arrays it
// keeps (nothing they held stays reachable), keeps arrays up to keptCap for
// the next messages and drops larger ones.
func TestOutboxReset(t *testing.T) {
	var o Outbox
	for range 3 {
		o.Allocations = append(o.Allocations, &app.Allocation{Key: "a"})
	}
	o.AppUpdates = append(o.AppUpdates, AppUpdate{AppID: "app"})
	for range keptCap + 1 {
		o.Released = append(o.Released, Released{AllocationKey: "r"})
	}
	kept := o.Allocations[:cap(o.Allocations)]
	keptUpdates := o.AppUpdates[:cap(o.AppUpdates)]
	o.Reset()
	if !o.Empty() || o.Placements() {
		t.Fatalf("reset outbox is not empty: %+v", o)
	}
	if cap(o.Allocations) != cap(kept) || &o.Allocations[:1][0] != &kept[0] {
		t.Errorf("the allocations' array was not kept")
	}
	for i, x := range kept {
		if x != nil {
			t.Errorf("kept allocation slot %d still holds %s", i, x.Key)
		}
	}
	if cap(o.AppUpdates) != cap(keptUpdates) || keptUpdates[0] != (AppUpdate{}) {
		t.Errorf("the application updates' array was not kept cleared")
	}
	if o.Released != nil {
		t.Errorf("an array of %d releases, over keptCap, was kept", cap(o.Released))
	}
	if o.RejectedNodes != nil || o.Waiting != nil {
		t.Errorf("lists never used got arrays")
	}
	// a second reset, of lists already empty, keeps what it has
	o.Reset()
	if cap(o.Allocations) != cap(kept) || &o.Allocations[:1][0] != &kept[0] {
		t.Errorf("a reset of an empty list dropped its array")
	}
}
