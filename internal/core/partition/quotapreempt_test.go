package partition

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/resource"
)

const quotaYAML = `
partitions:
  - name: default
    preemption:
      quotapreemptionenabled: true
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources: {max: {vcore: %d}}
            properties:
              quota.preemption.delay: 1m
`

// TestQuotaTriggerIsANextTimer: a driver on virtual time that steps only
// at NextTimer still runs the quota preemption when it is due, even when a
// pass consumed the wake-up earlier.
func TestQuotaTriggerIsANextTimer(t *testing.T) {
	p := mustPartition(t, fmt.Sprintf(quotaYAML, 8))
	p.AddNode("n1", vec(16000, 16<<30), resource.Vector{}, nil, true)
	p.AddApp(AppRequest{ID: "a1", Queue: "root.a", User: "u"}, t0)
	for i := range 4 {
		p.AddAsk(&app.Allocation{Key: fmt.Sprint("k", i), AppID: "a1", Res: vec(2000, 1<<30), PreemptSelf: true}, t0)
	}
	if got := p.Schedule(t0); got != 4 {
		t.Fatalf("allocated %d", got)
	}
	c, err := config.Parse(fmt.Appendf(nil, quotaYAML, 4))
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Second)
	if err := p.Reconfigure(&c.Partitions[0], now); err != nil {
		t.Fatal(err)
	}
	p.Tick(now)
	p.wakeAt(now) // an earlier wake-up (an ask to reserve), consumed by the pass
	p.Schedule(now)
	if next := p.NextTimer(); !next.Equal(now.Add(time.Minute)) {
		t.Fatalf("next timer %v, want %v", next, now.Add(time.Minute))
	}
	next := p.NextTimer()
	p.Tick(next)
	p.Schedule(next)
	if p.Stats.Preemptions != 2 {
		t.Fatalf("%d preemptions, want 2", p.Stats.Preemptions)
	}
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
	// the trigger stays due until the RM confirms, but wakes no one
	if nt := p.NextTimer(); !nt.IsZero() && !nt.After(next) {
		t.Fatalf("next timer %v after the preemption at %v", nt, next)
	}
}

func TestMulDivDoesNotOverflow(t *testing.T) {
	cases := []struct{ a, b, c, want int64 }{
		{6, 3, 9, 2},
		{7, 2, 6, 2},
		{0, 5, 5, 0},
		{math.MaxInt64, 1 << 40, 1 << 41, math.MaxInt64 / 2},
		{1 << 50, 1 << 50, 1 << 51, 1 << 49},
	}
	for _, c := range cases {
		if got := mulDiv(c.a, c.b, c.c); got != c.want {
			t.Errorf("mulDiv(%d, %d, %d) = %d, want %d", c.a, c.b, c.c, got, c.want)
		}
	}
}

// quotaTree is the configuration of the random quota preemption runs; the
// maxima and the delay change with every reload.
const quotaTree = `
partitions:
  - name: default
    preemption:
      quotapreemptionenabled: %v
    queues:
      - name: root
        submitacl: "*"
        properties:
          quota.preemption.delay: %s
        queues:
          - name: p1
            resources: {guaranteed: {vcore: 4}%s}
            queues:
              - name: l1
                resources: {guaranteed: {vcore: 2}%s}
              - name: l2
                resources: {guaranteed: {vcore: 1}}
          - name: p2
            queues:
              - name: l3
                resources: {guaranteed: {vcore: 2}%s}
              - name: l4
`

func randomQuotaConfig(rng *rand.Rand) string {
	maxOf := func(lo int) string {
		if rng.IntN(3) == 0 {
			return ""
		}
		return fmt.Sprintf(", max: {vcore: %d}", lo+rng.IntN(8))
	}
	delays := []string{"0s", "1s", "5s", "20s"}
	return fmt.Sprintf(quotaTree, rng.IntN(5) > 0, delays[rng.IntN(len(delays))], maxOf(4), maxOf(2), maxOf(2))
}

// TestRandomQuotaPreemption drives a partition with random reloads that
// lower and raise maxima, allocations recovered over max and RM releases,
// and checks after every step: the invariants (Verify), no queue preempted
// below its guarantee, preemption only below a queue whose quota
// preemption was due, and a handled queue never preempted below its max in
// the types it exceeded.
func TestRandomQuotaPreemption(t *testing.T) {
	leaves := []string{"root.p1.l1", "root.p1.l2", "root.p2.l3", "root.p2.l4"}
	preempted := false
	for seed := uint64(1); seed <= max(seeds()/5, 1); seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		c, err := config.Parse([]byte(randomQuotaConfig(rng)))
		for err != nil { // a child max above its parent's is invalid
			c, err = config.Parse([]byte(randomQuotaConfig(rng)))
		}
		p, err := New("rm", resource.NewRegistry(), &c.Partitions[0])
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			p.AddNode(fmt.Sprint("n", i), vec(8000, 16<<30), resource.Vector{}, nil, true)
		}
		now := t0
		var apps []string
		keys := map[string][]string{}
		keyN := 0
		for step := range 300 {
			now = now.Add(time.Duration(1+rng.IntN(3)) * time.Second)
			switch op := rng.IntN(16); {
			case op < 2:
				id := fmt.Sprint("app", len(apps))
				if p.AddApp(AppRequest{ID: id, Queue: leaves[rng.IntN(len(leaves))], User: "u"}, now) == nil {
					apps = append(apps, id)
				}
			case op < 6 && len(apps) > 0:
				id := apps[rng.IntN(len(apps))]
				keyN++
				k := fmt.Sprint("k", keyN)
				x := &app.Allocation{Key: k, AppID: id, Priority: int32(rng.IntN(3)), Res: vec(int64(1+rng.IntN(3))*500, int64(1+rng.IntN(4))<<29),
					PreemptSelf: rng.IntN(4) > 0, Originator: rng.IntN(6) == 0}
				var err error
				if rng.IntN(4) == 0 {
					x.NodeID = fmt.Sprint("n", rng.IntN(3)) // recovered: may push usage over max
					err = p.AddAllocation(x, now)
				} else {
					err = p.AddAsk(x, now)
				}
				if err == nil {
					keys[id] = append(keys[id], k)
				}
			case op < 8 && len(apps) > 0:
				id := apps[rng.IntN(len(apps))]
				if ks := keys[id]; len(ks) > 0 {
					i := rng.IntN(len(ks))
					p.Release(id, ks[i], now)
					keys[id] = append(ks[:i], ks[i+1:]...)
				}
			case op < 10:
				c, err := config.Parse([]byte(randomQuotaConfig(rng)))
				if err == nil {
					_ = p.Reconfigure(&c.Partitions[0], now)
				}
			case op < 12:
				for _, r := range p.Out.Take().Released {
					if r.Termination == PreemptedByScheduler && rng.IntN(3) > 0 {
						p.Release(r.AppID, r.AllocationKey, now) // the RM stops the victim
					} else if r.Termination == PreemptedByScheduler {
						p.Out.Released = append(p.Out.Released, r) // later
					}
				}
			default:
				checkQuotaStep(t, p, now, fmt.Sprintf("seed %d step %d", seed, step), &preempted)
			}
			if err := p.Verify(); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
		}
	}
	if !preempted {
		t.Error("the random runs never preempted: the invariants were not exercised")
	}
}

// checkQuotaStep steps the partition at now and checks what its quota
// preemption did.
func checkQuotaStep(t *testing.T, p *Partition, now time.Time, where string, preempted *bool) {
	t.Helper()
	type before struct {
		preempting, excess resource.Vector
		handled            bool
	}
	was := map[*queue.Queue]*before{}
	p.Tree().Each(func(q *queue.Queue) {
		b := &before{preempting: q.Preempting}
		was[q] = b
		tr := q.QuotaPreemption
		due := !tr.At.IsZero() && !now.Before(tr.At) && (tr.Checked.IsZero() || !now.Before(tr.Checked.Add(QuotaRecheck)))
		if !due || !p.quotaApplies(q) {
			return
		}
		b.excess = quotaExcess(q)
		b.handled = !b.excess.IsZero()
		for a := q.Parent; a != nil; a = a.Parent {
			if was[a].handled {
				b.handled = false
			}
		}
	})
	p.Tick(now)
	p.Schedule(now)
	p.Tree().Each(func(q *queue.Queue) {
		b := was[q]
		if q.Preempting == b.preempting {
			return
		}
		*preempted = true
		for i := range q.Preempting {
			g, ok := q.Guaranteed.Limit(resource.Index(i))
			if ok && q.Preempting[i] > b.preempting[i] && q.Allocated[i]-q.Preempting[i] < g {
				t.Fatalf("%s: queue %s preempted below its guarantee: allocated %v, preempting %v, guaranteed %d", where, q.Path, q.Allocated, q.Preempting, g)
			}
		}
		if !q.Preempting.Sub(b.preempting).AnyPositive() {
			return
		}
		under := false
		for a := q; a != nil; a = a.Parent {
			under = under || was[a].handled
		}
		if !under && q.Leaf {
			t.Fatalf("%s: queue %s preempted without a due quota preemption above it", where, q.Path)
		}
		if b.handled {
			// enough victims, then stop: below the max by less than one
			// victim (the largest allocation below q bounds one)
			biggest := largestBelow(q)
			for i, e := range b.excess {
				lim, _ := q.Max.Limit(resource.Index(i))
				if e > 0 && q.Allocated[i]-q.Preempting[i] <= lim-biggest[i] {
					t.Fatalf("%s: queue %s preempted more than needed below its max %d: allocated %v, preempting %v", where, q.Path, lim, q.Allocated, q.Preempting)
				}
			}
		}
	})
}

// largestBelow is, per type, the largest allocation in the leaves below q.
func largestBelow(q *queue.Queue) resource.Vector {
	var out resource.Vector
	var walk func(c *queue.Queue)
	walk = func(c *queue.Queue) {
		for _, k := range c.Children() {
			walk(k)
		}
		if !c.Leaf {
			return
		}
		for _, a := range c.Apps() {
			a.Each(func(x *app.Allocation) bool {
				if x.NodeID != "" {
					out = out.Max(x.Res)
				}
				return true
			})
		}
	}
	walk(q)
	return out
}
