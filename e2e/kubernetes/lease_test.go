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
