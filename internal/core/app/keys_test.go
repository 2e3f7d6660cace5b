package app

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestKeyIndexAgainstMap drives the index and a string-keyed map with the
// same adds and removes, under the real hash and under hashes that clash
// on purpose (a handful of values for hundreds of keys), and checks every
// look-up, the count and the visit after each step.
func TestKeyIndexAgainstMap(t *testing.T) {
	hashes := map[string]func(string) uint64{
		"seeded":  HashKey,
		"clash-3": func(k string) uint64 { return uint64(len(k)) % 3 },
		"clash-1": func(string) uint64 { return 7 },
		// distinct hashes with the same low bits: every key has the
		// same home slot, so runs are long and deletions shift them
		"one-home": func(k string) uint64 { return HashKey(k) &^ 0xffff },
		// and a home at the table's end: the runs wrap around
		"end-home": func(k string) uint64 { return HashKey(k) | 0xffff },
		"two-homes": func(k string) uint64 {
			return HashKey(k)&^0xffff | uint64(len(k)%2)*0xffff
		},
	}
	for name, hash := range hashes {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			k := newKeyIndex()
			model := map[string]*Allocation{}
			keys := make([]string, 300)
			for i := range keys {
				keys[i] = fmt.Sprintf("k%d", i*i%1013)
			}
			for step := range 6000 {
				// a random walk, then the index filled, drained (it
				// shrinks) and walked again
				key := keys[rng.IntN(len(keys))]
				switch {
				case step >= 4000 && step < 4300:
					key = keys[step-4000]
					if model[key] != nil {
						continue
					}
				case step >= 4300 && step < 4600:
					key = keys[step-4300]
					if model[key] == nil {
						continue
					}
				}
				h := hash(key)
				if x := model[key]; x != nil {
					k.remove(x, h)
					delete(model, key)
				} else {
					x = &Allocation{Key: key}
					k.add(x, h)
					model[key] = x
				}
				if k.len() != len(model) {
					t.Fatalf("step %d: len %d, want %d", step, k.len(), len(model))
				}
				for _, key := range keys {
					if got, want := k.find(key, hash(key)), model[key]; got != want {
						t.Fatalf("step %d: find(%s) = %p, want %p", step, key, got, want)
					}
				}
				seen := map[*Allocation]bool{}
				k.each(func(x *Allocation) bool {
					if seen[x] || model[x.Key] != x {
						t.Fatalf("step %d: visited %s twice or not in the model", step, x.Key)
					}
					seen[x] = true
					return true
				})
				if len(seen) != len(model) {
					t.Fatalf("step %d: visited %d, want %d", step, len(seen), len(model))
				}
			}
		})
	}
}

// TestKeyIndexStopsVisit checks that each stops when fn returns false, in
// the clash map too.
func TestKeyIndexStopsVisit(t *testing.T) {
	k := newKeyIndex()
	for i := range 5 {
		k.add(&Allocation{Key: fmt.Sprint(i)}, 1) // one slot, four clash
	}
	n := 0
	k.each(func(*Allocation) bool { n++; return n < 3 })
	if n != 3 {
		t.Fatalf("visited %d after stopping at 3", n)
	}
}
