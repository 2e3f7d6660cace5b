package main

import (
	"testing"
	"time"
)

// drain returns once the binds in flight are none on two looks in a row,
// and not before; with binds that never finish it gives up at its bound
// and says how many were left.
func TestDrainWaitsForBindsInFlight(t *testing.T) {
	counts := []int{3, 2, 0, 1, 0, 0, 5}
	looks := 0
	left := drain(func() int { n := counts[looks]; looks++; return n }, time.Hour, time.Millisecond)
	if left != 0 || looks != 6 {
		t.Fatalf("drain ended after %d looks with %d in flight, want 6 looks and 0", looks, left)
	}
	looks = 0
	start := time.Now()
	left = drain(func() int { looks++; return 4 }, 30*time.Millisecond, time.Millisecond)
	if left != 4 || looks < 2 {
		t.Fatalf("drain of binds that never finish: %d looks, %d left, want 4 left", looks, left)
	}
	if time.Since(start) < 30*time.Millisecond {
		t.Fatalf("drain gave up before its bound")
	}
}
