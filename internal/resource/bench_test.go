package resource

import "testing"

func benchVectors() (Vector, Vector) {
	return vec(1000, 1<<30, 1, 0, 2), vec(64000, 1<<38, 110, 0, 8)
}

func BenchmarkAdd(b *testing.B) {
	x, y := benchVectors()
	b.ReportAllocs()
	for b.Loop() {
		x = x.Add(y)
	}
	sinkVec = x
}

func BenchmarkSub(b *testing.B) {
	x, y := benchVectors()
	b.ReportAllocs()
	for b.Loop() {
		x = x.Sub(y)
	}
	sinkVec = x
}

func BenchmarkInc(b *testing.B) {
	x, y := benchVectors()
	b.ReportAllocs()
	for b.Loop() {
		x.Inc(y)
	}
	sinkVec = x
}

func BenchmarkAddChecked(b *testing.B) {
	x, y := benchVectors()
	b.ReportAllocs()
	for b.Loop() {
		sinkVec, sinkBool = x.AddChecked(y)
	}
}

func BenchmarkFits(b *testing.B) {
	x, y := benchVectors()
	b.ReportAllocs()
	for b.Loop() {
		sinkBool = x.Fits(y)
	}
}

func BenchmarkQuotaAllows(b *testing.B) {
	x, _ := benchVectors()
	q := Quota{}.With(VCoreIndex, 8000).With(MemoryIndex, 1<<34).With(3, 0)
	b.ReportAllocs()
	for b.Loop() {
		sinkBool = q.Allows(x)
	}
}

func BenchmarkQuotaAllowsAdd(b *testing.B) {
	x, y := benchVectors()
	q := Quota{}.With(VCoreIndex, 80000).With(MemoryIndex, 1<<40).With(3, 0)
	b.ReportAllocs()
	for b.Loop() {
		sinkBool = q.AllowsAdd(y, x)
	}
}

func BenchmarkQuotaHeadroom(b *testing.B) {
	x, _ := benchVectors()
	q := Quota{}.With(VCoreIndex, 8000).With(MemoryIndex, 1<<34)
	b.ReportAllocs()
	for b.Loop() {
		sinkQuota = q.Headroom(x)
	}
}

func BenchmarkQuotaMin(b *testing.B) {
	q := Quota{}.With(VCoreIndex, 8000).With(MemoryIndex, 1<<34)
	r := Quota{}.With(MemoryIndex, 1<<30).With(4, 3)
	b.ReportAllocs()
	for b.Loop() {
		sinkQuota = q.Min(r)
	}
}

func BenchmarkDominantShare(b *testing.B) {
	x, y := benchVectors()
	b.ReportAllocs()
	for b.Loop() {
		sinkFloat = DominantShare(x, y)
	}
}

func BenchmarkFairShare(b *testing.B) {
	x, y := benchVectors()
	g := Quota{}.With(VCoreIndex, 8000)
	b.ReportAllocs()
	for b.Loop() {
		sinkFloat = FairShare(x, g, y)
	}
}

// BenchmarkFairShareOf is FairShareOf for the common ask, two types in
// use, under a quota guaranteeing one of them: a queue's or application's
// share is recomputed this way on every decision.
func BenchmarkFairShareOf(b *testing.B) {
	used, fairMax := vec(1000, 1<<30), vec(64000, 1<<38)
	g := Quota{}.With(VCoreIndex, 8000)
	b.ReportAllocs()
	for b.Loop() {
		sinkFloat = FairShareOf(&used, &g, &fairMax)
	}
}

func BenchmarkWeightedShare(b *testing.B) {
	x, y := benchVectors()
	w := DefaultWeights()
	b.ReportAllocs()
	for b.Loop() {
		sinkFloat = WeightedShare(x, y, &w)
	}
}

func BenchmarkRegistryIndex(b *testing.B) {
	r := NewRegistry()
	for _, n := range []string{"pods", "ephemeral-storage", "nvidia.com/gpu", "hugepages-2Mi"} {
		if _, err := r.Intern(n); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		_, sinkBool = r.Index("hugepages-2Mi")
	}
}
