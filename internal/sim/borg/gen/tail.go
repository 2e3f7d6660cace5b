package gen

import "math"

// tailShare estimates the share of a total held by the largest 1% of
// values in constant memory: values go into log-spaced buckets (32 per
// doubling) that keep their count and sum. The bucket that straddles the
// top 1% contributes in proportion; the estimate is within a few percent
// of the exact share.
type tailShare struct {
	n, zeros int64
	count    map[int]int64
	sum      map[int]float64
	total    float64
}

const bucketsPerDoubling = 32

func (t *tailShare) add(v float64) {
	t.n++
	if !(v > 0) {
		t.zeros++
		return
	}
	if t.count == nil {
		t.count, t.sum = map[int]int64{}, map[int]float64{}
	}
	b := int(math.Floor(math.Log2(v) * bucketsPerDoubling))
	t.count[b]++
	t.sum[b] += v
	t.total += v
}

// top1 returns the estimated share of the total held by the top 1% of
// values (at least one value).
func (t *tailShare) top1() float64 {
	if t.total == 0 {
		return 0
	}
	k := (t.n + 99) / 100
	hi, lo := math.MinInt, math.MaxInt
	for b := range t.count {
		hi, lo = max(hi, b), min(lo, b)
	}
	var top float64
	for b := hi; b >= lo && k > 0; b-- {
		c := t.count[b]
		if c == 0 {
			continue
		}
		if c <= k {
			top += t.sum[b]
			k -= c
			continue
		}
		top += t.sum[b] * float64(k) / float64(c)
		k = 0
	}
	return top / t.total
}
