package partition

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/resource"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func vec(cpu, mem int64) resource.Vector {
	var v resource.Vector
	v[resource.VCoreIndex] = cpu
	v[resource.MemoryIndex] = mem
	return v
}

func mustPartition(t testing.TB, yaml string) *Partition {
	t.Helper()
	c, err := config.Parse([]byte(yaml))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	p, err := New("rm", resource.NewRegistry(), &c.Partitions[0])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const twoQueues = `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources:
              guaranteed: {vcore: 4}
              max: {vcore: 6}
          - name: b
            resources:
              guaranteed: {vcore: 4}
`

func TestAllocateAndRelease(t *testing.T) {
	p := mustPartition(t, twoQueues)
	for i := range 2 {
		if err := p.AddNode(fmt.Sprint("n", i), vec(4000, 4096), resource.Vector{}, nil, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.AddApp(AppRequest{ID: "app1", Queue: "root.a", User: "alice"}, t0); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := p.AddAsk(&app.Allocation{Key: fmt.Sprint("k", i), AppID: "app1", Res: vec(1000, 100)}, t0); err != nil {
			t.Fatal(err)
		}
	}
	// queue a max is 6 vcore: 6 asks allocate, 4 wait
	if got := p.Schedule(t0); got != 6 {
		t.Fatalf("allocated %d, want 6 (queue max)", got)
	}
	a, _ := p.App("app1")
	if a.State != app.Running || a.PendingCount() != 4 {
		t.Fatalf("state %s pending %d", a.State, a.PendingCount())
	}
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
	// releasing two frees headroom for two more
	out := p.Out.Take()
	p.Release("app1", out.Allocations[0].Key, t0)
	p.Release("app1", out.Allocations[1].Key, t0)
	if got := p.Schedule(t0); got != 2 {
		t.Fatalf("allocated %d after release, want 2", got)
	}
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
}

func TestFairShareAcrossQueues(t *testing.T) {
	p := mustPartition(t, twoQueues)
	p.AddNode("n0", vec(8000, 1<<30), resource.Vector{}, nil, true)
	for _, q := range []string{"a", "b"} {
		id := "app-" + q
		p.AddApp(AppRequest{ID: id, Queue: "root." + q, User: "u"}, t0)
		for i := range 8 {
			p.AddAsk(&app.Allocation{Key: fmt.Sprint(q, i), AppID: id, Res: vec(1000, 1)}, t0)
		}
	}
	if got := p.Schedule(t0); got != 8 {
		t.Fatalf("allocated %d, want 8", got)
	}
	a, _ := p.App("app-a")
	b, _ := p.App("app-b")
	if a.AllocatedCount() != 4 || b.AllocatedCount() != 4 {
		t.Fatalf("split %d/%d, want 4/4 (equal guarantees)", a.AllocatedCount(), b.AllocatedCount())
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	p := mustPartition(t, twoQueues)
	p.AddNode("n0", vec(8000, 1<<30), resource.Vector{}, nil, true)
	p.AddApp(AppRequest{ID: "app", Queue: "root.a", User: "u"}, t0)
	cases := map[string]error{
		"duplicate node":  p.AddNode("n0", vec(1, 1), resource.Vector{}, nil, true),
		"negative node":   p.AddNode("n1", vec(-1, 1), resource.Vector{}, nil, true),
		"duplicate app":   p.AddApp(AppRequest{ID: "app", Queue: "root.a", User: "u"}, t0),
		"unknown queue":   p.AddApp(AppRequest{ID: "x", Queue: "root.zz", User: "u"}, t0),
		"parent queue":    p.AddApp(AppRequest{ID: "y", Queue: "root", User: "u"}, t0),
		"no user":         p.AddApp(AppRequest{ID: "z", Queue: "root.a"}, t0),
		"unknown app ask": p.AddAsk(&app.Allocation{Key: "k", AppID: "nope", Res: vec(1, 1)}, t0),
		"empty ask":       p.AddAsk(&app.Allocation{Key: "k", AppID: "app"}, t0),
		"negative ask":    p.AddAsk(&app.Allocation{Key: "k", AppID: "app", Res: vec(-5, 1)}, t0),
		"unknown node":    p.AddAllocation(&app.Allocation{Key: "k", AppID: "app", NodeID: "zz", Res: vec(1, 1)}, t0),
		"update unknown":  p.UpdateNode("zz", vec(1, 1), resource.Vector{}),
		"remove unknown":  p.RemoveNode("zz", t0),
		"remove app nope": p.RemoveApp("nope", t0),
	}
	for name, err := range cases {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if p.NodeCount() != 1 || p.AppCount() != 1 || p.Cluster() != vec(8000, 1<<30) {
		t.Fatalf("state changed: %d nodes %d apps cluster %v", p.NodeCount(), p.AppCount(), p.Cluster())
	}
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
	out := p.Out.Take()
	if len(out.RejectedApps) != 4 || len(out.RejectedAllocs) != 4 {
		t.Fatalf("reported %d rejected apps, %d rejected allocations; want 4 and 4", len(out.RejectedApps), len(out.RejectedAllocs))
	}
}

const deepTree = `
partitions:
  - name: default
    nodesortpolicy: {type: binpacking}
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: p1
            resources: {max: {vcore: 20}}
            queues:
              - name: l1
                resources: {max: {vcore: 8}, guaranteed: {vcore: 4}}
                properties: {application.sort.policy: fair}
              - name: l2
                maxapplications: 3
                resources: {guaranteed: {vcore: 4}}
                properties: {preemption.delay: 2s}
          - name: p2
            queues:
              - name: l3
                resources: {guaranteed: {vcore: 6}}
                properties: {priority.offset: "5"}
              - name: l4
                resources: {guaranteed: {vcore: 3}}
`

// TestRandomOperationsKeepInvariants drives the partition with random
// operations and checks after every step that no node is over capacity,
// every roll-up matches a recomputation, and no queue exceeds its max.
func TestRandomOperationsKeepInvariants(t *testing.T) {
	leaves := []string{"root.p1.l1", "root.p1.l2", "root.p2.l3", "root.p2.l4"}
	preempted, gangsRan, gangPreempted, requeued, requeuedLost := false, false, false, false, false
	defer func() {
		if !t.Failed() && (!preempted || !gangsRan || !gangPreempted || !requeued || !requeuedLost) {
			t.Errorf("the random runs never preempted (%v), never started a gang (%v), no gang preempted (%v), no binding failed (%v) or none of an allocation released with its node (%v): the invariants were not exercised", preempted, gangsRan, gangPreempted, requeued, requeuedLost)
		}
	}()
	for seed := uint64(1); seed <= seeds(); seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		p := mustPartition(t, deepTree)
		now := t0
		var apps []string
		keys := map[string][]string{}
		nodeN, keyN := 0, 0
		for step := range 400 {
			now = now.Add(time.Second)
			switch op := rng.IntN(23); {
			case op < 2:
				nodeN++
				p.AddNode(fmt.Sprint("n", nodeN), vec(int64(1+rng.IntN(8))*1000, int64(1+rng.IntN(16))<<30), resource.Vector{}, nil, rng.IntN(5) > 0)
			case op < 4:
				id := fmt.Sprint("app", len(apps))
				if p.AddApp(AppRequest{ID: id, Queue: leaves[rng.IntN(len(leaves))], User: "u"}, now) == nil {
					apps = append(apps, id)
				}
			case op < 10 && len(apps) > 0:
				id := apps[rng.IntN(len(apps))]
				keyN++
				k := fmt.Sprint("k", keyN)
				if p.AddAsk(&app.Allocation{Key: k, AppID: id, Priority: int32(rng.IntN(3)), Res: vec(int64(1+rng.IntN(4))*500, int64(1+rng.IntN(4))<<29),
					PreemptSelf: rng.IntN(4) > 0, PreemptOther: true}, now) == nil {
					keys[id] = append(keys[id], k)
				}
			case op < 13 && len(apps) > 0:
				id := apps[rng.IntN(len(apps))]
				if ks := keys[id]; len(ks) > 0 {
					i := rng.IntN(len(ks))
					p.Release(id, ks[i], now)
					keys[id] = append(ks[:i], ks[i+1:]...)
				}
			case op == 13 && nodeN > 0:
				p.RemoveNode(fmt.Sprint("n", 1+rng.IntN(nodeN)), now)
			case op == 14 && nodeN > 0:
				p.SetSchedulable(fmt.Sprint("n", 1+rng.IntN(nodeN)), rng.IntN(2) == 0)
			case op == 15 && len(apps) > 0:
				i := rng.IntN(len(apps))
				p.RemoveApp(apps[i], now)
				delete(keys, apps[i])
				apps = append(apps[:i], apps[i+1:]...)
			case op == 17:
				// a gang: two placeholders and, later, real asks of its group
				id := fmt.Sprint("gang", len(apps))
				style := []string{GangSoft, GangHard}[rng.IntN(2)]
				mayPreempt := rng.IntN(2) == 0
				if p.AddApp(AppRequest{ID: id, Queue: "root.p1.l2", User: "g", PlaceholderAsk: vec(2000, 2<<29),
					GangStyle: style, ExecutionTimeout: time.Duration(5+rng.IntN(20)) * time.Second}, now) == nil {
					apps = append(apps, id)
					for j := range 2 {
						keyN++
						k := fmt.Sprint("ph", keyN)
						if p.AddAsk(&app.Allocation{Key: k, AppID: id, Res: vec(1000, 1<<29), Placeholder: true, TaskGroup: "tg", PreemptOther: mayPreempt}, now) == nil {
							keys[id] = append(keys[id], k)
						}
						_ = j
					}
					for range 2 {
						keyN++
						k := fmt.Sprint("real", keyN)
						if p.AddAsk(&app.Allocation{Key: k, AppID: id, Res: vec(int64(500+500*rng.IntN(3)), 1<<29), TaskGroup: "tg"}, now) == nil {
							keys[id] = append(keys[id], k)
						}
					}
				}
			case op == 18:
				// the RM confirms the placeholder replacements it was told of
				out := p.Out.Take()
				for _, r := range out.Released {
					if r.Termination == PreemptedByScheduler {
						if rng.IntN(3) > 0 {
							p.Release(r.AppID, r.AllocationKey, now) // the RM stops the victim
						} else {
							p.Out.Released = append(p.Out.Released, r) // later
						}
						continue
					}
					if r.Termination == PlaceholderReplaced && rng.IntN(3) > 0 {
						p.ConfirmReplacement(r.AppID, r.AllocationKey, now)
					} else if r.Termination == PlaceholderReplaced {
						p.Out.Released = append(p.Out.Released, r) // confirm later
					}
				}
			case op == 22 && len(apps) > 0:
				// the RM could not bind an allocation: back to pending under
				// its key, or released when the scheduler was taking it away
				id := apps[rng.IntN(len(apps))]
				if ks := keys[id]; len(ks) > 0 {
					k := ks[rng.IntN(len(ks))]
					a, ok := p.App(id)
					x, known := (*app.Allocation)(nil), false
					if ok {
						x, known = a.Allocation(k)
					}
					allocated := known && !x.Pending() && !x.Linked()
					releasing := allocated && (x.ReplacedBy() != nil || x.Preempted || x.Released)
					_, lost := p.Lost(id, k, now)
					told := len(p.Out.Released) + len(p.Out.Allocations)
					did, err := p.Requeue(id, k, now)
					if did == RequeuedTimedOut {
						told++ // a lost placeholder of a timed-out gang
					}
					if len(p.Out.Released)+len(p.Out.Allocations) != told {
						t.Fatalf("seed %d step %d: requeue %s/%s told the RM something", seed, step, id, k)
					}
					if (allocated || lost) != (err == nil) {
						t.Fatalf("seed %d step %d: requeue %s/%s (allocated %v, lost %v): %v", seed, step, id, k, allocated, lost, err)
					}
					if lost && did == RequeuedLost {
						if y, ok := a.Allocation(k); !ok || !y.Pending() {
							t.Fatalf("seed %d step %d: lost %s/%s is not pending again", seed, step, id, k)
						}
						requeuedLost = true
					}
					if allocated && !releasing {
						if !x.Pending() || x.Avoid() == "" {
							t.Fatalf("seed %d step %d: requeued %s/%s is not pending avoiding its node", seed, step, id, k)
						}
						requeued = true
					}
					if releasing {
						if _, still := a.Allocation(k); still {
							t.Fatalf("seed %d step %d: %s/%s was being taken away and is still there", seed, step, id, k)
						}
					}
				}
			case op == 16 && len(apps) > 0:
				id := apps[rng.IntN(len(apps))]
				if ks := keys[id]; len(ks) > 0 {
					// resize pending asks only: an RM-side resize of a running
					// allocation may legitimately overcommit a node
					k := ks[rng.IntN(len(ks))]
					if a, ok := p.App(id); ok {
						if x, ok := a.Allocation(k); ok && x.Pending() {
							p.UpdateAsk(id, k, vec(int64(1+rng.IntN(4))*500, 1<<29))
						}
					}
				}
			default:
				before := map[*queue.Queue]resource.Vector{}
				states := map[string]app.State{}
				held := map[string]resource.Vector{}
				p.Tree().Each(func(q *queue.Queue) { before[q] = q.Preempting })
				p.EachApp(func(a *app.App) bool { states[a.ID], held[a.ID] = a.State, a.PlaceholderAllocated; return true })
				outBefore := len(p.Out.Allocations)
				p.Schedule(now)
				p.Tick(now)
				// no queue is preempted below its guarantee
				p.Tree().Each(func(q *queue.Queue) {
					for i := range q.Preempting {
						g, ok := q.Guaranteed.Limit(resource.Index(i))
						if ok && q.Preempting[i] > before[q][i] && q.Allocated[i]-q.Preempting[i] < g {
							t.Fatalf("seed %d step %d: queue %s preempted below its guarantee: allocated %v, preempting %v, guaranteed %d",
								seed, step, q.Path, q.Allocated, q.Preempting, g)
						}
					}
					if q.Preempting != before[q] {
						preempted = true
					}
				})
				// gangs start running only with every placeholder placed:
				// what they held before the pass plus what it placed (a
				// real ask may drop a placeholder later in the same pass)
				for _, x := range p.Out.Allocations[outBefore:] {
					if x.Placeholder {
						v := held[x.AppID]
						v.Inc(x.Res)
						held[x.AppID] = v
					}
				}
				p.EachApp(func(a *app.App) bool {
					if !a.PlaceholderAsk.IsZero() && !a.GangTimedOut && a.State == app.Running && (states[a.ID] == app.Accepted || states[a.ID] == app.New) &&
						held[a.ID] != a.PlaceholderAsk {
						t.Fatalf("seed %d step %d: gang %s running with placeholders %v of %v (states %v)", seed, step, a.ID, held[a.ID], a.PlaceholderAsk, a.StateLog)
					}
					if !a.PlaceholderAsk.IsZero() && a.State == app.Running && states[a.ID] != app.Running {
						gangsRan = true
					}
					a.Each(func(x *app.Allocation) bool {
						gangPreempted = gangPreempted || (x.Placeholder && x.TriggeredPreemption)
						return !gangPreempted
					})
					return true
				})
			}
			if err := p.Verify(); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			p.Tree().Each(func(q *queue.Queue) {
				if q.Parent != nil && !q.Max.Allows(q.Allocated) {
					t.Fatalf("seed %d step %d: queue %s allocated %v over max", seed, step, q.Path, q.Allocated)
				}
				// an application that comes back from Completing runs at
				// once, as in the reference: only those may pass the max
				if q.MaxApps > 0 && q.RunningApps > q.MaxApps+uint64(revivedBelow(p, q)) {
					t.Fatalf("seed %d step %d: queue %s runs %d apps, max %d", seed, step, q.Path, q.RunningApps, q.MaxApps)
				}
			})
		}
	}
}

// revivedBelow counts the running applications at or below q that were
// Completing once.
func revivedBelow(p *Partition, q *queue.Queue) int {
	n := 0
	p.EachApp(func(a *app.App) bool {
		if !a.CountedRunning || (a.QueuePath != q.Path && !strings.HasPrefix(a.QueuePath, q.Path+".")) {
			return true
		}
		for _, c := range a.StateLog {
			if c.State == app.Completing {
				n++
				break
			}
		}
		return true
	})
	return n
}

func TestDecommissionReleasesAllocations(t *testing.T) {
	p := mustPartition(t, twoQueues)
	p.AddNode("n0", vec(4000, 1<<30), resource.Vector{}, nil, true)
	p.AddNode("n1", vec(4000, 1<<30), resource.Vector{}, nil, true)
	p.AddApp(AppRequest{ID: "app", Queue: "root.b", User: "u"}, t0)
	for i := range 8 {
		p.AddAsk(&app.Allocation{Key: fmt.Sprint("k", i), AppID: "app", Res: vec(1000, 1)}, t0)
	}
	if got := p.Schedule(t0); got != 8 {
		t.Fatalf("allocated %d", got)
	}
	p.Out.Take()
	if err := p.RemoveNode("n0", t0); err != nil {
		t.Fatal(err)
	}
	out := p.Out.Take()
	if len(out.Released) != 4 {
		t.Fatalf("released %d, want 4", len(out.Released))
	}
	for _, r := range out.Released {
		if r.Termination != StoppedByRM || r.Message != "Node n0 Removed" {
			t.Fatalf("release %+v", r)
		}
	}
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
	a, _ := p.App("app")
	if a.AllocatedCount() != 4 || p.Cluster() != vec(4000, 1<<30) {
		t.Fatalf("allocated %d cluster %v", a.AllocatedCount(), p.Cluster())
	}
}

// seeds is the number of random sequences TestRandomOperationsKeepInvariants
// runs: 1000 by default, more (or fewer) with PADDOCK_SEEDS.
func seeds() uint64 {
	if n, err := strconv.ParseUint(os.Getenv("PADDOCK_SEEDS"), 10, 64); err == nil && n > 0 {
		return n
	}
	return 1000
}
