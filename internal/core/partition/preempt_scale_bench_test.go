package partition

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Preemption at scale (issue 39, item 1): 10,000 nodes full of 200,000
// running allocations of 10,000 applications spread over 10 to 10,000 leaf
// queues three levels deep, and a burst of asks entitled to preempt. The
// applications and allocations are the same at every queue count: only how
// many queues hold them changes.
const (
	scaleNodes       = 10000
	scaleAllocs      = 200000
	scaleApps        = 10000
	scaleBurst       = 100
	scaleVictimVcore = 1000
)

// scaleQueueConfig is a three-level tree of leaves queues (root.dI.tJ.lK)
// and, when fair is set, paddock.fairshare.preemption on root and on every
// parent, otherwise a guaranteed root.urgent for the preemptors.
func scaleQueueConfig(leaves int, fair bool) string {
	fan := int(math.Ceil(math.Cbrt(float64(leaves))))
	var b strings.Builder
	b.WriteString("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: \"*\"\n")
	fairProps := ""
	if fair {
		fairProps = "properties: {paddock.fairshare.preemption: enabled, preemption.delay: 1ms}"
		b.WriteString("        " + fairProps + "\n")
	}
	b.WriteString("        queues:\n")
	if !fair {
		b.WriteString("          - name: urgent\n            resources: {guaranteed: {vcore: 100000000}}\n            properties: {preemption.delay: 1ms}\n")
	}
	// leaves go round robin over fan*fan second-level parents
	per := make([][]int, fan*fan)
	for i := range leaves {
		per[i%(fan*fan)] = append(per[i%(fan*fan)], i)
	}
	for d := range fan {
		fmt.Fprintf(&b, "          - name: d%d\n", d)
		if fair {
			b.WriteString("            " + fairProps + "\n")
		}
		b.WriteString("            queues:\n")
		for t := range fan {
			ls := per[d*fan+t]
			if len(ls) == 0 {
				continue
			}
			fmt.Fprintf(&b, "              - name: t%d\n", t)
			if fair {
				b.WriteString("                " + fairProps + "\n")
			}
			b.WriteString("                queues:\n")
			for _, l := range ls {
				fmt.Fprintf(&b, "                  - name: l%d\n", l)
				if fair {
					b.WriteString("                    properties: {preemption.delay: 1ms}\n")
				}
			}
		}
	}
	return b.String()
}

// scaleLeafPaths lists the leaf paths of scaleQueueConfig in leaf order.
func scaleLeafPaths(leaves int) []string {
	fan := int(math.Ceil(math.Cbrt(float64(leaves))))
	out := make([]string, leaves)
	for i := range leaves {
		par := i % (fan * fan)
		out[i] = fmt.Sprintf("root.d%d.t%d.l%d", par/fan, par%fan, i)
	}
	return out
}

// scalePartition builds the cluster: every node full, its 20 allocations of
// 1 vcore from 20 applications, created one second apart.
func scalePartition(b testing.TB, leaves int, fair bool) (*Partition, []string) {
	p := mustPartition(b, scaleQueueConfig(leaves, fair))
	per := scaleAllocs / scaleNodes
	for i := range scaleNodes {
		if err := p.AddNode(fmt.Sprintf("node-%06d", i), vec(int64(per)*scaleVictimVcore, int64(per)*4<<30), resource.Vector{}, nil, true); err != nil {
			b.Fatal(err)
		}
	}
	paths := scaleLeafPaths(leaves)
	// with fair share, the preemptors' leaves hold nothing: the last
	// tenth of the leaves (at least one) stays empty for them
	holders := leaves
	if fair {
		holders = leaves - max(1, leaves/10)
	}
	for i := range scaleApps {
		if err := p.AddApp(AppRequest{ID: fmt.Sprint("app", i), Queue: paths[i%holders], User: "u"}, t0); err != nil {
			b.Fatal(err)
		}
	}
	for i := range scaleAllocs {
		x := &app.Allocation{Key: fmt.Sprint("k", i), AppID: fmt.Sprint("app", (i*7919)%scaleApps), Res: vec(scaleVictimVcore, 4<<30),
			NodeID: fmt.Sprintf("node-%06d", i/per), Created: t0.Add(time.Duration(i%3600) * time.Second), PreemptSelf: true}
		if err := p.AddAllocation(x, t0); err != nil {
			b.Fatal(err)
		}
	}
	// the scheduler has run since the cluster came: the node index and
	// the queues' view of the cluster's size are current when a burst
	// arrives (bringing 10,000 nodes' index entries up to date after
	// 200,000 recovered allocations is the set-up's cost, not a burst's)
	p.nodeIndex()
	p.Schedule(t0)
	p.Out.Take()
	return p, paths[holders:]
}

// BenchmarkPreemptionAtScale measures the time from a burst of asks' arrival
// (once past their queue's preemption.delay) to the end of the pass that
// sends each ask's victims' releases to the RM, as the engine runs passes
// back to back (a pass makes at most maxPreemptAttempts attempts), in wall
// time (p50-ms, p99-ms) and in the scheduling thread's CPU time
// (p50-cpu-ms, p99-cpu-ms: the same on an idle machine), and the process
// CPU per preemption decision. Each b.N is one burst of scaleBurst
// asks of priority 10, of 2 vcore (two victims) in mode guaranteed and
// 1 vcore in mode fairshare; the victims are released and the asks placed
// before the next burst. mode guaranteed: the asks come from
// root.urgent, below its guarantee. mode fairshare: the asks come from
// empty leaves below their fair share, every parent has fair-share
// preemption on, and nothing is guaranteed.
func BenchmarkPreemptionAtScale(b *testing.B) {
	for _, mode := range []string{"guaranteed", "fairshare"} {
		for _, leaves := range []int{10, 100, 1000, 10000} {
			b.Run(fmt.Sprintf("%s/queues=%d", mode, leaves), func(b *testing.B) {
				preemptAtScale(b, leaves, mode == "fairshare")
			})
		}
	}
}

// BenchmarkPreemptionBreadth is BenchmarkPreemptionAtScale's guaranteed
// mode with the victim search comparing minCandidateNodes (100) workable
// nodes rather than a tenth of the 10,000: what the search breadth costs.
func BenchmarkPreemptionBreadth(b *testing.B) {
	defer func(p int) { candidateNodesPercent = p }(candidateNodesPercent)
	candidateNodesPercent = 0
	for _, leaves := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprintf("guaranteed/queues=%d/candidates=100", leaves), func(b *testing.B) {
			preemptAtScale(b, leaves, false)
		})
	}
}

func preemptAtScale(b *testing.B, leaves int, fair bool) {
	p, askLeaves := scalePartition(b, leaves, fair)
	var lat, latCPU []time.Duration
	var cpu time.Duration
	// the passes run on this goroutine's thread: its CPU time from a
	// burst's start is the latency on an idle machine (without waiting
	// for the CPU, and without the collector's own threads)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	decisions := 0
	now := t0.Add(2 * time.Hour)
	b.ResetTimer()
	for burst := range b.N {
		b.StopTimer()
		keys := map[string]bool{}
		for i := range scaleBurst {
			id := fmt.Sprintf("urgent-%d-%d", burst, i)
			q := "root.urgent"
			if fair {
				q = askLeaves[i%len(askLeaves)]
			}
			if err := p.AddApp(AppRequest{ID: id, Queue: q, User: "v"}, now); err != nil {
				b.Fatal(err)
			}
			res := vec(2*scaleVictimVcore, 8<<30)
			if fair {
				// one victim: a sibling's allocations are scattered (at
				// 1,000 leaves a parent's subtree holds 0.2 per node), so
				// two on one node are rare, and the victims of an ask
				// must share its node
				res = vec(scaleVictimVcore, 4<<30)
			}
			if err := p.AddAsk(&app.Allocation{Key: "x", AppID: id, Res: res, Priority: 10, PreemptOther: true, PreemptSelf: true}, now); err != nil {
				b.Fatal(err)
			}
			keys[id] = true
		}
		now = now.Add(time.Second) // past preemption.delay
		b.StartTimer()
		var released []Released
		start := time.Now()
		cpu0 := cpuTime()
		thread0, threadOK := threadCPU()
		for passes := 0; len(keys) > 0; passes++ {
			if passes > 4*scaleBurst {
				for id := range keys {
					d, err := p.ExplainPreemption(id, "x", now)
					b.Fatalf("%d asks without victims after %d passes; %s: %+v %v", len(keys), passes, id, d, err)
				}
			}
			p.Schedule(now)
			out := p.Out.Take()
			at := time.Since(start)
			atCPU, _ := threadCPU()
			atCPU -= thread0
			seen := map[string]bool{}
			for _, r := range out.Released {
				released = append(released, r)
				if a, ok := p.apps[r.AppID]; ok {
					if x, ok := a.Allocation(r.AllocationKey); ok && x.PreemptedFor() != nil && !seen[x.PreemptedFor().AppID] {
						seen[x.PreemptedFor().AppID] = true
					}
				}
			}
			for id := range seen {
				if keys[id] {
					delete(keys, id)
					lat = append(lat, at)
					if threadOK {
						latCPU = append(latCPU, atCPU)
					}
					decisions++
				}
			}
		}
		cpu += cpuTime() - cpu0
		b.StopTimer()
		for _, r := range released {
			p.Release(r.AppID, r.AllocationKey, now)
		}
		p.Schedule(now)
		p.Out.Take()
		b.StartTimer()
	}
	b.StopTimer()
	if err := p.Verify(); err != nil {
		b.Fatal(err)
	}
	q := func(lat []time.Duration, f float64) float64 {
		slices.Sort(lat)
		return float64(lat[int(f*float64(len(lat)-1))]) / 1e6
	}
	b.ReportMetric(q(lat, 0.5), "p50-ms")
	b.ReportMetric(q(lat, 0.99), "p99-ms")
	if len(latCPU) > 0 {
		b.ReportMetric(q(latCPU, 0.5), "p50-cpu-ms")
		b.ReportMetric(q(latCPU, 0.99), "p99-cpu-ms")
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(decisions), "cpu-us/decision")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
