package resource

import "testing"

// sink values keep the compiler from discarding the measured calls.
var (
	sinkVec   Vector
	sinkBool  bool
	sinkFloat float64
	sinkQuota Quota
)

// TestHotPathsDoNotAllocate asserts the operations the scheduler runs per
// node, ask and queue allocate nothing.
func TestHotPathsDoNotAllocate(t *testing.T) {
	a, b := vec(1000, 1<<30, 1), vec(4000, 1<<32, 8)
	q := Quota{}.With(VCoreIndex, 8000).With(MemoryIndex, 0)
	w := DefaultWeights()
	r := NewRegistry()
	ops := map[string]func(){
		"Add":           func() { sinkVec = a.Add(b) },
		"Sub":           func() { sinkVec = b.Sub(a) },
		"Inc":           func() { sinkVec.Inc(a) },
		"Dec":           func() { sinkVec.Dec(a) },
		"AddChecked":    func() { sinkVec, sinkBool = a.AddChecked(b) },
		"SubChecked":    func() { sinkVec, sinkBool = b.SubChecked(a) },
		"MulChecked":    func() { sinkVec, sinkBool = a.MulChecked(3) },
		"Fits":          func() { sinkBool = a.Fits(b) },
		"Min":           func() { sinkVec = a.Min(b) },
		"Max":           func() { sinkVec = a.Max(b) },
		"IsZero":        func() { sinkBool = a.IsZero() },
		"HasNegative":   func() { sinkBool = a.HasNegative() },
		"AnyPositive":   func() { sinkBool = a.AnyPositive() },
		"Allows":        func() { sinkBool = q.Allows(a) },
		"AllowsAdd":     func() { sinkBool = q.AllowsAdd(a, b) },
		"Headroom":      func() { sinkQuota = q.Headroom(a) },
		"QuotaMin":      func() { sinkQuota = q.Min(sinkQuota) },
		"Overlay":       func() { sinkVec = q.Overlay(b) },
		"DominantShare": func() { sinkFloat = DominantShare(a, b) },
		"FairShare":     func() { sinkFloat = FairShare(a, q, b) },
		"WeightedShare": func() { sinkFloat = WeightedShare(a, b, &w) },
		"Index":         func() { _, sinkBool = r.Index(Memory) },
		"Intern known":  func() { _, _ = r.Intern(VCore) },
		"Name":          func() { sinkBool = r.Name(MemoryIndex) == "" },
	}
	for name, op := range ops {
		if n := testing.AllocsPerRun(100, op); n != 0 {
			t.Errorf("%s allocates %v times per call, want 0", name, n)
		}
	}
}
