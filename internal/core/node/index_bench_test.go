//go:build unix

package node

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/resource"
)

// BenchmarkIndexUpdate is the node index's share of one decision, First
// and then Update of the node the ask went to, with uniform asks (under
// Fair the node moves from the front to the back of the order) and mixed
// ones (three sizes in turn: scores spread, moves are shorter). Besides
// the wall clock it reports cpu-ns/op, the process's CPU time per
// operation, steadier on a shared machine.
func BenchmarkIndexUpdate(b *testing.B) {
	for _, nodes := range []int{5000, 50000} {
		for _, p := range []Policy{Fair, BinPacking} {
			for _, mixed := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s/nodes=%d", map[Policy]string{Fair: "fair", BinPacking: "binpacking"}[p],
					map[bool]string{false: "uniform", true: "mixed"}[mixed], nodes)
				b.Run(name, func(b *testing.B) { benchUpdate(b, nodes, p, mixed) })
			}
		}
	}
}

func benchUpdate(b *testing.B, nodes int, p Policy, mixed bool) {
	x := NewIndex(p, resource.DefaultWeights())
	all := make([]*Node, nodes)
	for i := range all {
		// the partition benchmark's nodes: a run never fills them
		all[i] = New(fmt.Sprintf("node-%06d", i), vec(1<<30, 1<<44), nil)
		x.Add(all[i])
	}
	asks := []resource.Vector{vec(1000, 4<<30)}
	if mixed {
		asks = append(asks, vec(4000, 2<<30), vec(500, 16<<30))
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		ask := asks[i%len(asks)]
		n := x.First(&ask)
		if n == nil { // cluster full (not with these nodes): empty it
			b.StopTimer()
			c := cpuTime()
			for _, m := range all {
				m.Allocated = resource.Vector{}
				x.Update(m)
			}
			cpu0 += cpuTime() - c
			b.StartTimer()
			continue
		}
		n.Allocated = n.Allocated.Add(ask)
		x.Update(n)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
