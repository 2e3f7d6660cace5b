package app

import (
	"math"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/resource"
)

func TestHistoryAccumulatesOnRelease(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	for _, x := range []*Allocation{ask("a", 0, 0, vec(2, 10)), ask("b", 0, 1, vec(1, 4))} {
		if err := a.AddAsk(x); err != nil {
			t.Fatal(err)
		}
	}
	x := a.Next()
	a.Allocate(x, "n1", t0)
	x.InstanceType = "m5.large" // the node package stamps it when x lands on a node
	y := a.Next()
	a.Allocate(y, "n2", t0.Add(10*time.Second)) // on a node without a type
	if len(a.History.Used) != 0 {
		t.Fatalf("history %v before any release", a.History)
	}
	a.Remove("a", t0.Add(30*time.Second+900*time.Millisecond)) // 30 whole seconds
	y.Preempted = true
	a.Remove("b", t0.Add(15*time.Second)) // 5 s, preempted
	want := Usage{"m5.large": vec(60, 300), UnknownInstanceType: vec(5, 20)}
	if !equalUsage(a.History.Used, want) {
		t.Fatalf("used %v, want %v", a.History.Used, want)
	}
	if want := (Usage{UnknownInstanceType: vec(5, 20)}); !equalUsage(a.History.Preempted, want) {
		t.Fatalf("preempted %v, want %v", a.History.Preempted, want)
	}
	if len(a.History.Placeholder) != 0 {
		t.Fatalf("placeholder %v, want none", a.History.Placeholder)
	}
	// a snapshot copy does not move with the live history
	c := a.History.Clone()
	a.History.Used.add("m5.large", vec(1, 1), 1)
	if !equalUsage(c.Used, Usage{"m5.large": vec(60, 300), UnknownInstanceType: vec(5, 20)}) {
		t.Fatalf("clone changed: %v", c.Used)
	}
}

func TestHistoryPlaceholderSwap(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	ph := &Allocation{Key: "ph", Res: vec(1, 8), Placeholder: true, TaskGroup: "tg", Created: t0}
	real := &Allocation{Key: "r", Res: vec(1, 8), TaskGroup: "tg", Created: t0}
	for _, x := range []*Allocation{ph, real} {
		if err := a.AddAsk(x); err != nil {
			t.Fatal(err)
		}
	}
	a.Allocate(ph, "n1", t0)
	ph.InstanceType = "gpu"
	a.Link(real, ph)
	if got := a.Swap(ph, t0.Add(20*time.Second)); got != real {
		t.Fatalf("Swap returned %v", got)
	}
	real.InstanceType = "gpu"
	a.Remove("r", t0.Add(50*time.Second))
	if want := (Usage{"gpu": vec(20, 160)}); !equalUsage(a.History.Placeholder, want) {
		t.Fatalf("placeholder %v, want %v", a.History.Placeholder, want)
	}
	// the real allocation counts from the swap, not from the placeholder's start
	if want := (Usage{"gpu": vec(30, 240)}); !equalUsage(a.History.Used, want) {
		t.Fatalf("used %v, want %v", a.History.Used, want)
	}
}

func TestHistorySaturates(t *testing.T) {
	var u Usage
	u.add("x", vec(math.MaxInt64/2, 1), 3)
	u.add("x", vec(1, 1), 1)
	if got := u["x"]; got[resource.VCoreIndex] != math.MaxInt64 || got[resource.MemoryIndex] != 4 {
		t.Fatalf("got %v", got)
	}
}

func equalUsage(a, b Usage) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
