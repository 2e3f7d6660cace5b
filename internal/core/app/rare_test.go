package app

import (
	"testing"
	"time"
	"unsafe"
)

// The ask of the hot path stays at 352 bytes: the rmproxy's blocks of
// asks are sized for it (rmproxy allocBlock), and each byte is a million
// at the scale target.
func TestAllocationSize(t *testing.T) {
	if got := unsafe.Sizeof(Allocation{}); got > 352 {
		t.Errorf("Allocation is %d bytes, want at most 352: put fields few asks set in rareFields", got)
	}
}

func TestRareFieldsZeroWithoutAllocation(t *testing.T) {
	x := &Allocation{Key: "a"}
	// setters given zero values store nothing where nothing was
	x.SetAvoid("")
	x.SetPreemptedFor(nil)
	x.SetTookFrom(nil)
	x.SetCooldownUntil(time.Time{})
	x.SetPreemptCheckedAt(time.Time{})
	x.SetPredicatesToldAt(time.Time{})
	x.AddVictims(0)
	x.unbind()
	link(x, nil)
	if x.rare != nil {
		t.Fatal("a zero setter allocated the rare fields")
	}
	if x.Avoid() != "" || x.PreemptedFor() != nil || x.TookFrom() != nil || !x.CooldownUntil().IsZero() ||
		!x.PreemptCheckedAt().IsZero() || !x.PredicatesToldAt().IsZero() || x.Victims() != 0 ||
		x.Replacing() != nil || x.ReplacedBy() != nil || !x.Pending() || x.Linked() {
		t.Fatal("absent rare fields do not read as zero values")
	}

	y := &Allocation{Key: "b"}
	t1 := t0.Add(time.Minute)
	x.SetAvoid("n1")
	x.SetPreemptedFor(y)
	x.SetTookFrom([]string{"root.a"})
	x.SetCooldownUntil(t1)
	x.SetPreemptCheckedAt(t1.Add(time.Second))
	x.SetPredicatesToldAt(t1.Add(2 * time.Second))
	x.AddVictims(2)
	x.AddVictims(-1)
	if x.Avoid() != "n1" || x.PreemptedFor() != y || len(x.TookFrom()) != 1 || !x.CooldownUntil().Equal(t1) ||
		!x.PreemptCheckedAt().Equal(t1.Add(time.Second)) || !x.PredicatesToldAt().Equal(t1.Add(2*time.Second)) || x.Victims() != 1 {
		t.Fatalf("rare fields not kept: %+v", *x.rare)
	}
	x.SetAvoid("")
	x.SetPreemptedFor(nil)
	if x.Avoid() != "" || x.PreemptedFor() != nil {
		t.Fatal("rare fields not cleared")
	}

	link(x, y)
	if x.Replacing() != y || y.ReplacedBy() != x || x.Pending() || !x.Linked() {
		t.Fatal("link not kept both ways")
	}
	link(x, nil)
	if x.Replacing() != nil || y.ReplacedBy() != nil || !x.Pending() {
		t.Fatal("unlink left a link")
	}
}

// A real ask that took its placeholder's place and is then requeued (the
// RM failed to bind it) counts from its next placement, not from the swap.
func TestHistoryRequeueAfterSwap(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	ph := &Allocation{Key: "ph", Res: vec(1, 8), Placeholder: true, TaskGroup: "tg", Created: t0}
	real := &Allocation{Key: "r", Res: vec(1, 8), TaskGroup: "tg", Created: t0}
	for _, x := range []*Allocation{ph, real} {
		if err := a.AddAsk(x); err != nil {
			t.Fatal(err)
		}
	}
	a.Allocate(ph, "n1", t0)
	a.Link(real, ph)
	a.Swap(ph, t0.Add(20*time.Second))
	if err := a.Requeue(real, t0.Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	a.Allocate(real, "n2", t0.Add(40*time.Second))
	a.Remove("r", t0.Add(70*time.Second))
	// 10 s from the swap to the requeue, 30 s from the next placement
	if want := (Usage{UnknownInstanceType: vec(40, 320)}); !equalUsage(a.History.Used, want) {
		t.Fatalf("used %v, want %v", a.History.Used, want)
	}
}
