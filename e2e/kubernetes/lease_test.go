package main

import (
	"testing"
	"time"
)

func TestLeaseFlag(t *testing.T) {
	var l leaseTimes
	if err := l.Set("5s, 4s, 500ms"); err != nil {
		t.Fatal(err)
	}
	if want := (leaseTimes{5 * time.Second, 4 * time.Second, 500 * time.Millisecond}); l != want {
		t.Fatalf("got %v, want %v", l, want)
	}
	for _, bad := range []string{"", "5s,4s", "5s,4s,1s,1s", "5s,x,1s", "5s,5s,1s", "5s,4s,4s", "-1s,-2s,-3s", "0s,0s,0s"} {
		l := paddockLease
		if err := l.Set(bad); err == nil {
			t.Errorf("%q accepted as %v", bad, l)
		} else if l != paddockLease {
			t.Errorf("%q rejected (%v) but changed the lease to %v", bad, err, l)
		}
	}
}

func TestLostLease(t *testing.T) {
	unasked := []string{"paddock-b-2 (exit status 1)", "paddock-a-10 (exit status 1)"}
	for id, want := range map[string]bool{"paddock-b-2": true, "paddock-a-10": true, "paddock-a-1": false, "paddock-b": false, "": false} {
		if got := lostLease(unasked, id); got != want {
			t.Errorf("lostLease(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestWaveHeldBack(t *testing.T) {
	w := wave{id: "ru", pods: 1000, namespaces: 10, held: 0.5}
	if got := w.heldBack(); got != 400 {
		t.Errorf("heldBack = %d, want 400 (half of 800 Deployment pods)", got)
	}
	if got := w.initial(80); got != 40 {
		t.Errorf("initial(80) = %d, want 40", got)
	}
	w.held = 0
	if got := w.heldBack(); got != 0 {
		t.Errorf("heldBack without held = %d, want 0", got)
	}
	w = wave{id: "ru", pods: 7, namespaces: 2, held: 0.5}
	if got := w.heldBack(); got != 3 {
		t.Errorf("heldBack of 7 pods in 2 namespaces (4 and 3 Deployment pods) = %d, want 2+1", got)
	}
}
