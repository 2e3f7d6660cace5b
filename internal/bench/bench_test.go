package bench

import (
	"testing"
)

// TestSmallScenarioAllocatesEverything checks the harness itself: every ask
// of a small scenario is allocated and counted.
func TestSmallScenarioAllocatesEverything(t *testing.T) {
	for _, sc := range []Scenario{
		{Nodes: 20, Asks: 500, Apps: 2, Queues: 1},
		{Nodes: 20, Asks: 500, Apps: 50, Queues: 5, Mixed: true},
	} {
		r, err := Run(sc)
		if err != nil {
			t.Fatal(err)
		}
		if r.Allocated != sc.Asks {
			t.Fatalf("%s: allocated %d of %d", sc.Name(), r.Allocated, sc.Asks)
		}
		if r.First <= 0 || r.First > r.Elapsed {
			t.Fatalf("%s: first allocation after %v, the last after %v", sc.Name(), r.First, r.Elapsed)
		}
	}
}

// BenchmarkAllocate runs the issue #7 matrix at 5,000 nodes (use
// `paddock bench` for the whole matrix). Each iteration is one full run.
func BenchmarkAllocate(b *testing.B) { benchMatrix(b, false) }

// BenchmarkAllocateSeeAllocations is BenchmarkAllocate for an RM whose
// node checks see its allocations (the Kubernetes shim's kind): one
// delivery per allocation, each handed to the RM's courier as it is
// placed (`paddock bench -see-allocations`).
func BenchmarkAllocateSeeAllocations(b *testing.B) { benchMatrix(b, true) }

func benchMatrix(b *testing.B, see bool) {
	for _, sc := range Scenarios() {
		if sc.Nodes != 5000 {
			continue
		}
		sc.SeeAllocations = see
		b.Run(sc.Name(), func(b *testing.B) {
			var last Result
			for range b.N {
				r, err := Run(sc)
				if err != nil {
					b.Fatal(err)
				}
				last = r
			}
			b.ReportMetric(last.PerSecond, "allocs/s")
			b.ReportMetric(last.NsPerAlloc, "ns/alloc")
			b.ReportMetric(last.CPUPerAlloc, "cpu-ns/alloc")
			b.ReportMetric(last.HeapAllocs, "heap-allocs/alloc")
			b.ReportMetric(100*last.GCShare, "gc-%")
			b.ReportMetric(float64(last.First.Microseconds())/1000, "first-ms")
		})
	}
}

// BenchmarkScale runs the scale scenario (50,000 nodes, 1,000,000 asks;
// `paddock bench -scale` prints the same with memory figures).
func BenchmarkScale(b *testing.B) {
	var last Result
	for range b.N {
		r, err := Run(Scale)
		if err != nil {
			b.Fatal(err)
		}
		last = r
	}
	b.ReportMetric(last.PerSecond, "allocs/s")
	b.ReportMetric(last.CPUPerAlloc, "cpu-ns/alloc")
	b.ReportMetric(last.HeapAllocs, "heap-allocs/alloc")
	b.ReportMetric(float64(last.First.Microseconds())/1000, "first-ms")
	b.ReportMetric(float64(last.Register.Milliseconds()), "register-ms")
	b.ReportMetric(last.BytesPerNode, "B/node")
	b.ReportMetric(last.BytesPerAsk, "B/ask")
}
