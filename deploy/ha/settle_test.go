package main

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A pod the shim holds as pending counts as stale only when the list does
// not hold it pending and the shim's version of it is older than the
// list's; a malformed version is an error, not a guess.
func TestStale(t *testing.T) {
	pending := map[string]bool{"a": true}
	shim := []shimPod{
		{"a", "5"},   // pending in both
		{"b", "7"},   // bound by the list (at 10), the shim has version 7: stale
		{"c", "12"},  // created or changed after the list: the shim's own truth
		{"d", "10"},  // the same version as the list's, which does not hold it pending: not stale (it is what the list saw)
		{"e", "100"}, // longer: newer
	}
	n, err := stale(shim, "10", pending)
	if err != nil || n != 1 {
		t.Fatalf("stale = %d, %v; want 1 (b)", n, err)
	}
	if _, err := stale([]shimPod{{"x", "07"}}, "10", nil); err == nil {
		t.Fatal("a malformed resource version was compared")
	}
}

// settle lists once and waits until the shim's view catches up; with a
// shim that never does, it gives up at its bound and says how many pods
// were behind; a failed list is its error.
func TestSettleWaitsForTheShim(t *testing.T) {
	lists := 0
	list := func(context.Context) (string, map[string]bool, error) {
		lists++
		return "10", map[string]bool{"a": true}, nil
	}
	views := [][]shimPod{
		{{"a", "3"}, {"b", "4"}, {"c", "5"}}, // b and c bound already, the shim behind
		{{"a", "3"}, {"c", "5"}},             // b caught up
		{{"a", "3"}},                         // c too
	}
	looks := 0
	shim := func() []shimPod { v := views[min(looks, len(views)-1)]; looks++; return v }
	n, err := settle(context.Background(), list, shim, time.Hour, time.Millisecond)
	if err != nil || n != 0 || looks != 3 || lists != 1 {
		t.Fatalf("settle = %d, %v after %d looks and %d lists; want 0 after 3 looks and 1 list", n, err, looks, lists)
	}
	n, err = settle(context.Background(), list, func() []shimPod { return views[0] }, 20*time.Millisecond, time.Millisecond)
	if err != nil || n != 2 {
		t.Fatalf("settle with a shim that never catches up = %d, %v; want 2", n, err)
	}
	boom := errors.New("boom")
	if _, err := settle(context.Background(), func(context.Context) (string, map[string]bool, error) { return "", nil, boom }, shim, time.Hour, time.Millisecond); !errors.Is(err, boom) {
		t.Fatalf("a failed list gave %v", err)
	}
}
