package resource

import "fmt"

// MaxQuantity is the largest quantity Paddock accepts for one resource
// type, 2^61 (2 Ei bytes of memory, 2.3e12 cores in millicores), and the
// largest value any total may reach: a partition's capacity, the sum of
// its asks and allocations, and the sum of its foreign allocations are each
// kept at or below it when input is accepted. Every other total (a node's,
// queue's, application's or user's) is part of one of those, so all totals
// lie in [0, MaxQuantity] and a sum or difference of up to three of them
// cannot wrap int64, which is what Add, Sub, Inc and Dec rely on.
const MaxQuantity int64 = 1 << 61

// checkQuantity rejects a quantity above MaxQuantity, naming the resource.
func checkQuantity(name string, x int64) error {
	if x > MaxQuantity {
		return fmt.Errorf("resource %q: quantity %d is above the maximum %d", name, x, MaxQuantity)
	}
	return nil
}

// Above returns the first type in which total - old + add is above
// MaxQuantity, and false when there is none. It is the check made before
// a total grows by add while old leaves it; total may be a sum of up to
// two totals and old part of it, so each lies in [0, 2*MaxQuantity] and
// the arithmetic cannot wrap. An add above MaxQuantity is always above.
func (total Vector) Above(old, add Vector) (Index, bool) {
	for i := range total {
		if add[i] > MaxQuantity || total[i]-old[i]+add[i] > MaxQuantity {
			return Index(i), true
		}
	}
	return 0, false
}
