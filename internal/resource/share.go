package resource

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// DominantShare returns the largest used[i]/total[i] over the types with
// total[i] > 0, or 0 if there is none. Types with no total are ignored.
func DominantShare(used, total Vector) float64 {
	var s float64
	for i := range used {
		if total[i] > 0 {
			s = max(s, float64(used[i])/float64(total[i]))
		}
	}
	return s
}

// FairShare is the sort key of queues and fair-sorted applications (lower
// sorts first). It is the largest share over the types used is positive in,
// where a type's share is used/guaranteed if guaranteed limits that type and
// used/fairMax otherwise. A zero (or negative) denominator for a type in use
// gives that type a share of 1. fairMax is the cluster capacity overridden
// by the maxima set along the queue path (see Quota.Overlay); for an
// application, guaranteed is its leaf queue's guaranteed and fairMax the
// leaf's fair max, so a leaf without a guaranteed still compares shares
// rather than raw quantities.
//
// The key depends only on used, guaranteed and fairMax, so callers compute
// it once when one of them changes and keep it with the queue or app.
func FairShare(used Vector, guaranteed Quota, fairMax Vector) float64 {
	return FairShareOf(&used, &guaranteed, &fairMax)
}

// FairShareOf is FairShare without copying its arguments (a queue's
// share is recomputed on every decision).
func FairShareOf(used *Vector, guaranteed *Quota, fairMax *Vector) float64 {
	var s float64
	// only the types in use count: most vectors use two, which the mask
	// walks without a test per type (in ascending order, as a loop over
	// the vector would, so the float is the same)
	for m := used.Support(); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(uint32(m))
		u := used[i]
		if u <= 0 {
			continue
		}
		d := fairMax[i]
		if guaranteed.set&(1<<i) != 0 {
			d = guaranteed.limit[i]
		}
		if d <= 0 {
			s = max(s, 1)
			continue
		}
		s = max(s, float64(u)/float64(d))
	}
	return s
}

// Weights holds a non-negative weight per resource type for node scoring;
// a type with weight 0 does not count.
type Weights [MaxTypes]float64

// DefaultWeights weighs vcore and memory equally and ignores every other
// type, as the node sort policy does when no weights are configured.
func DefaultWeights() Weights {
	var w Weights
	w[VCoreIndex] = 1
	w[MemoryIndex] = 1
	return w
}

// WeightsFromMap builds weights from a resource-name map, interning new
// names. A nil or empty map gives DefaultWeights. Negative, NaN and
// infinite weights are rejected, naming the resource; on error the registry
// is unchanged.
func (r *Registry) WeightsFromMap(m map[string]float64) (Weights, error) {
	if len(m) == 0 {
		return DefaultWeights(), nil
	}
	names := sortedKeys(m)
	for _, n := range names {
		if w := m[n]; w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return Weights{}, fmt.Errorf("resource %q: weight %v is not a finite non-negative number", n, w)
		}
	}
	if err := r.internAll(names); err != nil {
		return Weights{}, err
	}
	var w Weights
	for _, n := range names {
		i, _ := r.Index(n)
		w[i] = m[n]
	}
	return w, nil
}

// WeightedShare is a node's usage score: the weighted average over the types
// with a non-zero weight and capacity[i] > 0 of used[i]/capacity[i], where
// used counts everything occupying the node (allocated plus foreign). It is
// 0 when no type counts. The fair node policy takes the lowest score first,
// bin packing the highest.
func WeightedShare(used, capacity Vector, w *Weights) float64 {
	var sum, weight float64
	for i := range used {
		if w[i] == 0 || capacity[i] <= 0 {
			continue
		}
		sum += w[i] * float64(used[i]) / float64(capacity[i])
		weight += w[i]
	}
	if weight == 0 {
		return 0
	}
	return sum / weight
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
