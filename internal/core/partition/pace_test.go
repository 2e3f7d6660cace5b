package partition

import (
	"fmt"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

// quota is a test pacer: it lets `left` allocations through, then holds
// the next back until `until`; it records what it was told.
type quota struct {
	left  int
	until time.Time
	took  int
}

func (q *quota) Ready(now time.Time) time.Time {
	if q.left > 0 {
		return time.Time{}
	}
	return q.until
}

func (q *quota) Took(_ time.Time, n int) { q.left -= n; q.took += n }

// TestPacerHoldsAsksBack checks that a pass stops placing once the RM's
// pacer holds the next allocation back: the asks it did not reach stay
// pending with their state untouched (no NoNodeFits, no report as waiting
// for cluster resources), the RM is not asked about nodes for them, and
// the partition runs a pass by itself when the pacer is ready.
func TestPacerHoldsAsksBack(t *testing.T) {
	p := sixAsksFourNodes(t)
	asked := 0
	p.SetPredicate(func(*app.Allocation, string, bool) error { asked++; return nil })
	q := &quota{left: 2, until: t0.Add(50 * time.Millisecond)}
	p.SetPacer(q)
	if got := p.Schedule(t0); got != 2 {
		t.Fatalf("allocated %d with room for 2, want 2", got)
	}
	if q.took != 2 || asked != 2 {
		t.Fatalf("pacer told of %d allocations, RM asked %d times; want 2 and 2", q.took, asked)
	}
	if p.Stats.Paced != 1 {
		t.Fatalf("Stats.Paced = %d, want 1", p.Stats.Paced)
	}
	a, _ := p.App("app1")
	for i := 2; i < 6; i++ {
		x, _ := a.Allocation(fmt.Sprint("k", i))
		if r := a.Why(x); r.Kind != app.NotTried {
			t.Errorf("%s: reason %v while held back by the pacer, want none", x.Key, r)
		}
	}
	if out := p.Out.Take(); len(out.Waiting) != 0 || len(out.Allocations) != 2 {
		t.Fatalf("%d allocations, %d waiting reports; want 2 and 0", len(out.Allocations), len(out.Waiting))
	}
	if next := p.NextTimer(); !next.Equal(q.until) {
		t.Fatalf("next pass at %v, want the pacer's %v", next.Sub(t0), q.until.Sub(t0))
	}
	// before the pacer is ready the partition has nothing to do
	if got := p.Schedule(t0.Add(10 * time.Millisecond)); got != 0 {
		t.Fatalf("allocated %d before the pacer was ready", got)
	}
	q.left = 10
	if got := p.Schedule(q.until); got != 4 {
		t.Fatalf("allocated %d once the pacer was ready, want the 4 left", got)
	}
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
}

// open is a pacer that never holds an allocation back: what asking one
// costs a decision.
type open struct{ took int }

func (*open) Ready(time.Time) time.Time { return time.Time{} }
func (o *open) Took(_ time.Time, n int) { o.took += n }

// BenchmarkSchedulePaced is BenchmarkSchedule at 1,000 nodes, 100
// applications and 10 queues without a pacer and with one that never
// holds back: the difference is what asking the pacer costs a decision.
func BenchmarkSchedulePaced(b *testing.B) {
	for _, paced := range []bool{false, true} {
		b.Run(fmt.Sprintf("paced=%v", paced), func(b *testing.B) {
			p := mustPartition(b, benchConfig(10))
			for i := range 1000 {
				p.AddNode(fmt.Sprintf("node-%06d", i), vec(1<<30, 1<<44), resource.Vector{}, nil, true)
			}
			for i := range 100 {
				p.AddApp(AppRequest{ID: fmt.Sprint("app", i), Queue: fmt.Sprintf("root.q%d", i%10), User: "u"}, t0)
			}
			for i := range b.N {
				p.AddAsk(&app.Allocation{Key: fmt.Sprint("k", i), AppID: fmt.Sprint("app", i%100), Res: vec(1000, 1<<30)}, t0)
			}
			pc := &open{}
			if paced {
				p.SetPacer(pc)
			}
			p.Out.Take()
			b.ReportAllocs()
			b.ResetTimer()
			if got := p.Schedule(t0); got != b.N {
				b.Fatalf("allocated %d of %d", got, b.N)
			}
			if paced && pc.took != b.N {
				b.Fatalf("pacer told of %d of %d", pc.took, b.N)
			}
		})
	}
}
