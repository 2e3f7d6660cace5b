package soak

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestLeakFails runs a short soak with a leak injected: every RM batch and
// REST request leaves a goroutine behind and keeps 64 KiB. The soak must
// say the goroutines grew. (The 60 s soak without a leak, which must pass,
// is a step of scripts/test.sh: `paddock-harness soak -duration 60s`.)
func TestLeakFails(t *testing.T) {
	if testing.Short() {
		t.Skip("a 16 s soak in real time: the full tier (scripts/test.sh) runs it")
	}
	block := make(chan struct{})
	defer close(block)
	var mu sync.Mutex
	var kept [][]byte
	leak := func() {
		go func() { <-block }()
		mu.Lock()
		kept = append(kept, make([]byte, 64<<10))
		mu.Unlock()
	}
	rep, err := Run(context.Background(), Options{Duration: 16 * time.Second, WarmUp: 4 * time.Second, SampleEvery: 500 * time.Millisecond,
		EventRing: 2000, Leak: leak})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.String())
	if rep.Errors != 0 {
		t.Errorf("%d requests failed, first: %s", rep.Errors, rep.FirstError)
	}
	if !rep.Failed() {
		t.Fatal("a leak of a goroutine per request passed the soak")
	}
	var g *Trend
	for i := range rep.Trends {
		if rep.Trends[i].Metric == Goroutines {
			g = &rep.Trends[i]
		}
	}
	if g == nil || !g.Exceeded() {
		t.Fatalf("goroutine growth not reported: %v", rep.Trends)
	}
	mu.Lock()
	n := len(kept)
	mu.Unlock()
	// the leak ran during the load: the growth is the leak's, within what the load did
	if g.Growth() > float64(n) {
		t.Errorf("goroutines grew by %v, more than the %d leaked", g.Growth(), n)
	}
	last := rep.Samples[len(rep.Samples)-1]
	if last.Allocations == 0 || last.Requests == 0 || last.Records == 0 {
		t.Errorf("the load did not run: %+v", last)
	}
}
