package serve

import (
	"testing"
	"time"
)

// TestLoadShort is the CI version of the load test: 50 REST readers
// polling every 10 ms or so while an RM streams SI updates for 3 s; every
// request must succeed and scheduling must go on.
func TestLoadShort(t *testing.T) {
	r, err := RunLoad(LoadOptions{Readers: 50, Interval: 10 * time.Millisecond, Duration: 3 * time.Second, Nodes: 50, Outstanding: 100, MinAllocations: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r)
	if r.Errors != 0 {
		t.Fatalf("%d of %d requests failed; first: %s", r.Errors, r.Requests, r.FirstError)
	}
	if r.Requests < 50 || r.Allocations == 0 {
		t.Fatalf("no real load: %s", r)
	}
}

// BenchmarkLoad compares scheduling throughput with and without 1,000
// REST readers (one request a second each); use `paddock-harness loadtest` for
// the full 30 s run.
func BenchmarkLoad(b *testing.B) {
	for _, readers := range []int{0, 1000} {
		b.Run(map[int]string{0: "no-readers", 1000: "1000-readers"}[readers], func(b *testing.B) {
			var rate float64
			for range b.N {
				r, err := RunLoad(LoadOptions{Readers: readers, Interval: time.Second, Duration: 5 * time.Second})
				if err != nil {
					b.Fatal(err)
				}
				if r.Errors != 0 {
					b.Fatalf("%d errors: %s", r.Errors, r.FirstError)
				}
				rate += r.AllocsPerSecond()
			}
			b.ReportMetric(rate/float64(b.N), "allocs/s")
		})
	}
}
