package node

import (
	"math"
	"testing"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

// TestBoundsCoverAllocations: nodes sharing a Bounds widen it as
// allocations arrive or grow, keep it when they leave (a looser bound),
// and Tighten makes it exact again once Loose says enough left.
func TestBoundsCoverAllocations(t *testing.T) {
	b := NewBounds()
	if b.MinPriority != math.MaxInt32 || !b.MaxRes.IsZero() {
		t.Fatalf("empty bounds %+v", b)
	}
	n1, n2 := New("n1", resource.Vector{8000, 8 << 30}, nil), New("n2", resource.Vector{8000, 8 << 30}, nil)
	n1.SetBounds(b)
	n2.SetBounds(b)
	big := &app.Allocation{Key: "big", Res: resource.Vector{4000, 1 << 30}, Priority: 5}
	small := &app.Allocation{Key: "small", Res: resource.Vector{1000, 2 << 30}, Priority: 1}
	low := &app.Allocation{Key: "low", Res: resource.Vector{500, 1 << 29}, Priority: -3}
	n1.AddAlloc(big)
	n2.AddAlloc(small)
	n2.AddAlloc(low)
	if want := (resource.Vector{4000, 2 << 30}); b.MaxRes != want || b.MinPriority != -3 {
		t.Fatalf("bounds %v %d, want %v -3", b.MaxRes, b.MinPriority, want)
	}
	small.Res = resource.Vector{1000, 3 << 30}
	b.Resized(small)
	if b.MaxRes[1] != 3<<30 {
		t.Fatalf("memory bound %d after a resize, want %d", b.MaxRes[1], 3<<30)
	}
	nodes := func(yield func(*Node) bool) { _ = yield(n1) && yield(n2) }
	n1.RemoveAlloc(big)
	n2.RemoveAlloc(low)
	if b.MaxRes[0] != 4000 || b.MinPriority != -3 {
		t.Fatalf("bounds narrowed on their own: %v %d", b.MaxRes, b.MinPriority)
	}
	if !b.Loose(2) {
		t.Fatalf("3 of 4 changed, one left: not loose (%+v)", b)
	}
	b.Tighten(nodes)
	if want := (resource.Vector{1000, 3 << 30}); b.MaxRes != want || b.MinPriority != 1 || b.Loose(2) {
		t.Fatalf("tightened bounds %v %d loose %v, want %v 1 false", b.MaxRes, b.MinPriority, b.Loose(2), want)
	}
}
