package partition

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
)

// An ask key is unique within its application only: two applications may
// both have an ask "k". A node reserved for one of them is not reserved
// for the other.
//
// sameKeyCluster builds nodes n1 and n2 of 4,000 vcore, each full with
// four 1,000-vcore allocations of queue b, and applications p1 and p2 in
// the guaranteed queue a.
func sameKeyCluster(t *testing.T) *Partition {
	t.Helper()
	p := mustPartition(t, breadthConfig) // a guaranteed queue a, a queue b
	for _, id := range []string{"victims", "p1", "p2"} {
		q := "root.a"
		if id == "victims" {
			q = "root.b"
		}
		if err := p.AddApp(AppRequest{ID: id, Queue: q, User: "u"}, t0); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"n1", "n2"} {
		if err := p.AddNode(n, vec(4000, 4096), vec(0, 0), nil, true); err != nil {
			t.Fatal(err)
		}
		for j := range 4 {
			x := &app.Allocation{Key: fmt.Sprintf("%s-%d", n, j), AppID: "victims", NodeID: n, Res: vec(1000, 1024), PreemptSelf: true}
			if err := p.AddAllocation(x, t0); err != nil {
				t.Fatal(err)
			}
		}
	}
	return p
}

// TestSameAskKeyOtherAppNotReserved: p1 and p2 both ask for 2,000 vcore
// under the key "k". p1's preemption reserves its victims' node; p2's must
// then take its victims elsewhere and reserve that node, exactly as when
// the keys differ, rather than take more victims on p1's node.
func TestSameAskKeyOtherAppNotReserved(t *testing.T) {
	for _, keys := range [][2]string{{"k1", "k2"}, {"k", "k"}} {
		t.Run(keys[0]+"/"+keys[1], func(t *testing.T) {
			p := sameKeyCluster(t)
			for i, id := range []string{"p1", "p2"} {
				x := &app.Allocation{Key: keys[i], AppID: id, Res: vec(2000, 2048), PreemptOther: true}
				if err := p.AddAsk(x, t0); err != nil {
					t.Fatal(err)
				}
			}
			p.Schedule(t0.Add(time.Minute))
			out := p.Out.Take()
			onNode := map[string]int{}
			for _, r := range out.Released {
				onNode[strings.SplitN(r.AllocationKey, "-", 2)[0]]++
			}
			if len(out.Released) != 4 || onNode["n1"] != 2 || onNode["n2"] != 2 {
				t.Fatalf("victims per node %v (%d released), want 2 on n1 and 2 on n2", onNode, len(out.Released))
			}
			held := map[string]bool{}
			for i, id := range []string{"p1", "p2"} {
				r, ok := p.reserved[reservationKey(id, keys[i])]
				if !ok {
					t.Fatalf("%s's ask %s holds no reservation", id, keys[i])
				}
				held[r.node.ID] = true
			}
			if len(held) != 2 {
				t.Fatalf("reserved nodes %v, want one per preemptor", held)
			}
			if err := p.Verify(); err != nil {
				t.Fatal(err)
			}
			// the victims go: each preemptor is placed on its own node
			for _, r := range out.Released {
				p.Release(r.AppID, r.AllocationKey, t0.Add(time.Minute))
			}
			p.Schedule(t0.Add(time.Minute))
			for i, id := range []string{"p1", "p2"} {
				if x, _ := p.apps[id].Allocation(keys[i]); x.NodeID == "" {
					t.Fatalf("%s's ask not placed once its victims went", id)
				}
			}
			if err := p.Verify(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSameAskKeyDryRun: p1's ask "k" of 3,000 vcore holds n1, which has
// 2,000 free; n2 has 1,000 free. p2's ask, of 2,000 vcore, may not go to
// n1: the dry run must say what the scheduler then does (preempt on n2),
// whatever p2's ask is called.
func TestSameAskKeyDryRun(t *testing.T) {
	for _, key := range []string{"k2", "k"} {
		t.Run(key, func(t *testing.T) {
			p := sameKeyCluster(t)
			for _, v := range []string{"n1-0", "n1-1", "n2-0"} {
				p.Release("victims", v, t0)
			}
			// p1 fits no node; past the reservation delay it reserves n1,
			// the node closest to fitting it (it does not preempt)
			big := &app.Allocation{Key: "k", AppID: "p1", Res: vec(3000, 3072)}
			if err := p.AddAsk(big, t0); err != nil {
				t.Fatal(err)
			}
			p.Schedule(t0.Add(ReservationDelay))
			if r, ok := p.reserved[reservationKey("p1", "k")]; !ok || r.node.ID != "n1" {
				t.Fatalf("p1's ask does not hold n1: %v", p.reserved)
			}
			now := t0.Add(ReservationDelay + time.Second)
			if err := p.AddAsk(&app.Allocation{Key: key, AppID: "p2", Res: vec(2000, 2048), PreemptOther: true}, t0); err != nil {
				t.Fatal(err)
			}
			d, err := p.ExplainPreemption("p2", key, now.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			if !d.Would || d.Decision.Node != "n2" || len(d.Decision.Victims) != 1 {
				t.Fatalf("dry run for p2's %s: %+v, want one victim on n2", key, d)
			}
			p.Schedule(now.Add(time.Minute))
			out := p.Out.Take()
			if len(out.Released) != 1 || out.Released[0].AllocationKey != d.Decision.Victims[0].AllocationKey {
				t.Fatalf("released %+v, the dry run said %+v", out.Released, d.Decision.Victims)
			}
		})
	}
}
