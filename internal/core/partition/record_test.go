package partition

import (
	"strconv"
	"testing"
)

// TestRecordKeepsWindow: the partition keeps the last MaxPreemptDecisions
// decisions, oldest first, and a slice handed out earlier keeps what it
// held while later decisions are recorded.
func TestRecordKeepsWindow(t *testing.T) {
	p := mustPartition(t, breadthConfig)
	var early []PreemptDecision
	var earlyWant []string
	for i := range 5 * MaxPreemptDecisions {
		p.record(PreemptDecision{AllocationKey: strconv.Itoa(i)})
		got := p.PreemptDecisions()
		if want := min(i+1, MaxPreemptDecisions); len(got) != want {
			t.Fatalf("after %d decisions %d kept, want %d", i+1, len(got), want)
		}
		if last := got[len(got)-1].AllocationKey; last != strconv.Itoa(i) {
			t.Fatalf("after %d decisions the last is %s", i+1, last)
		}
		if first := got[0].AllocationKey; first != strconv.Itoa(max(0, i+1-MaxPreemptDecisions)) {
			t.Fatalf("after %d decisions the first is %s", i+1, first)
		}
		if i == MaxPreemptDecisions+3 {
			early = got
			for _, d := range got {
				earlyWant = append(earlyWant, d.AllocationKey)
			}
		}
	}
	for i, d := range early {
		if d.AllocationKey != earlyWant[i] {
			t.Fatalf("an earlier reader's decision %d changed from %s to %s", i, earlyWant[i], d.AllocationKey)
		}
	}
}
