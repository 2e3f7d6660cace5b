package partition

import (
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/core/latency"
	"github.com/paddock-sched/paddock/internal/logging"
	"github.com/paddock-sched/paddock/internal/resource"
)

func benchConfig(queues int) string {
	var b strings.Builder
	b.WriteString("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: \"*\"\n        queues:\n")
	for i := range queues {
		fmt.Fprintf(&b, "          - name: q%d\n", i)
	}
	return b.String()
}

// BenchmarkSchedule measures the engine alone: one pass placing b.N
// pending asks over the nodes (no SI conversion, no callbacks). ns/op is
// the cost of one decision.
func BenchmarkSchedule(b *testing.B) {
	for _, nodes := range []int{1000, 5000, 10000} {
		for _, split := range [][2]int{{2, 1}, {100, 10}, {1000, 10}} {
			b.Run(fmt.Sprintf("nodes=%d/apps=%d/queues=%d", nodes, split[0], split[1]), func(b *testing.B) {
				p := mustPartition(b, benchConfig(split[1]))
				for i := range nodes {
					p.AddNode(fmt.Sprintf("node-%06d", i), vec(1<<30, 1<<44), resource.Vector{}, nil, true)
				}
				for i := range split[0] {
					p.AddApp(AppRequest{ID: fmt.Sprint("app", i), Queue: fmt.Sprintf("root.q%d", i%split[1]), User: "u"}, t0)
				}
				for i := range b.N {
					p.AddAsk(&app.Allocation{Key: fmt.Sprint("k", i), AppID: fmt.Sprint("app", i%split[0]), Res: vec(1000, 1<<30)}, t0)
				}
				p.Out.Take()
				b.ReportAllocs()
				b.ResetTimer()
				if got := p.Schedule(t0); got != b.N {
					b.Fatalf("allocated %d of %d", got, b.N)
				}
			})
		}
	}
}

// BenchmarkScheduleLatency is BenchmarkSchedule at 5,000 nodes, 100
// applications and 10 queues without and with the phase timing the
// metrics turn on (latency.Recorder): the difference is what timing costs
// a decision.
func BenchmarkScheduleLatency(b *testing.B) {
	for _, timed := range []bool{false, true} {
		b.Run(fmt.Sprintf("timed=%v", timed), func(b *testing.B) {
			p := mustPartition(b, benchConfig(10))
			if timed {
				p.SetLatency(latency.NewRecorder())
			}
			for i := range 5000 {
				p.AddNode(fmt.Sprintf("node-%06d", i), vec(1<<30, 1<<44), resource.Vector{}, nil, true)
			}
			for i := range 100 {
				p.AddApp(AppRequest{ID: fmt.Sprint("app", i), Queue: fmt.Sprintf("root.q%d", i%10), User: "u"}, t0)
			}
			for i := range b.N {
				p.AddAsk(&app.Allocation{Key: fmt.Sprint("k", i), AppID: fmt.Sprint("app", i%100), Res: vec(1000, 1<<30)}, t0)
			}
			p.Out.Take()
			b.ReportAllocs()
			b.ResetTimer()
			if got := p.Schedule(t0); got != b.N {
				b.Fatalf("allocated %d of %d", got, b.N)
			}
		})
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkMemory reports the heap held per node and per pending ask
// (targets: under 4 KiB per node, under 1 KiB per pending ask).
func BenchmarkMemory(b *testing.B) {
	const nodes, asks = 5000, 100000
	for range b.N {
		base := heapInUse()
		p := mustPartition(b, benchConfig(10))
		for i := range nodes {
			p.AddNode(fmt.Sprintf("node-%06d", i), vec(64000, 256<<30), resource.Vector{}, map[string]string{"si/hostname": fmt.Sprint("host", i)}, true)
		}
		withNodes := heapInUse()
		for i := range 100 {
			p.AddApp(AppRequest{ID: fmt.Sprint("app", i), Queue: fmt.Sprintf("root.q%d", i%10), User: "u"}, t0)
		}
		withApps := heapInUse()
		for i := range asks {
			p.AddAsk(&app.Allocation{Key: fmt.Sprintf("ask-%07d", i), AppID: fmt.Sprint("app", i%100), Res: vec(1000, 1<<30)}, t0)
		}
		p.Out.Take()
		withAsks := heapInUse()
		b.ReportMetric(float64(withNodes-base)/nodes, "B/node")
		b.ReportMetric(float64(withAsks-withApps)/asks, "B/ask")
		runtime.KeepAlive(p)
	}
}

// deepConfig is a 5-level queue tree (root.l1.l2.l3.leafN) with a wildcard
// user limit at every level, for the user tracking benchmark.
func deepConfig(leaves int) string {
	var b strings.Builder
	b.WriteString(`partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        limits: [{users: ["*"], maxapplications: 100000, maxresources: {vcore: 1000000000}}, {groups: [group0, group1, group2, group3, group4, group5, group6, group7, group8, group9], maxapplications: 100000, maxresources: {vcore: 1000000000}}]
        queues:
          - name: l1
            limits: [{users: ["*"], maxapplications: 100000, maxresources: {vcore: 1000000000}}, {groups: [group0, group1, group2, group3, group4, group5, group6, group7, group8, group9], maxapplications: 100000, maxresources: {vcore: 1000000000}}]
            queues:
              - name: l2
                limits: [{users: ["*"], maxapplications: 100000, maxresources: {vcore: 1000000000}}, {groups: [group0, group1, group2, group3, group4, group5, group6, group7, group8, group9], maxapplications: 100000, maxresources: {vcore: 1000000000}}]
                queues:
                  - name: l3
                    limits: [{users: ["*"], maxapplications: 100000, maxresources: {vcore: 1000000000}}, {groups: [group0, group1, group2, group3, group4, group5, group6, group7, group8, group9], maxapplications: 100000, maxresources: {vcore: 1000000000}}]
                    queues:
`)
	for i := range leaves {
		fmt.Fprintf(&b, "                      - name: leaf%d\n                        limits: [{users: [\"*\"], maxapplications: 100000, maxresources: {vcore: 1000000000}}, {groups: [group0, group1, group2, group3, group4, group5, group6, group7, group8, group9], maxapplications: 100000, maxresources: {vcore: 1000000000}}]\n", i)
	}
	return b.String()
}

// BenchmarkTracking compares a decision with and without user/group
// tracking at 100 users over a 5-level queue tree (issue: tracking must add
// less than 20%).
func BenchmarkTracking(b *testing.B) {
	for _, tracked := range []bool{false, true} {
		b.Run(fmt.Sprintf("tracking=%v", tracked), func(b *testing.B) {
			p := mustPartition(b, deepConfig(10))
			if !tracked {
				p.users = nil
			}
			for i := range 1000 {
				p.AddNode(fmt.Sprintf("node-%06d", i), vec(1<<30, 1<<44), resource.Vector{}, nil, true)
			}
			for i := range 100 {
				p.AddApp(AppRequest{ID: fmt.Sprint("app", i), Queue: fmt.Sprintf("root.l1.l2.l3.leaf%d", i%10), User: fmt.Sprint("user", i), Groups: []string{fmt.Sprint("group", i%10)}}, t0)
			}
			for i := range b.N {
				p.AddAsk(&app.Allocation{Key: fmt.Sprint("k", i), AppID: fmt.Sprint("app", i%100), Res: vec(1000, 1<<30)}, t0)
			}
			p.Out.Take()
			b.ReportAllocs()
			b.ResetTimer()
			if got := p.Schedule(t0); got != b.N {
				b.Fatalf("allocated %d of %d", got, b.N)
			}
			b.StopTimer()
			if _, ok := p.users.User("user0"); ok != tracked {
				b.Fatalf("user0 tracked = %v, want %v", ok, tracked)
			}
			if err := p.Verify(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkScheduleEvents is BenchmarkSchedule at 5000 nodes, 100 apps and
// 10 queues with an event sink (as paddock serve installs one) and
// without: the cost of emitting the events of a decision.
func BenchmarkScheduleEvents(b *testing.B) {
	for _, sink := range []bool{false, true} {
		b.Run(fmt.Sprintf("sink=%v", sink), func(b *testing.B) {
			p := mustPartition(b, benchConfig(10))
			n := 0
			if sink {
				p.SetEventSink(func(*event.Record) { n++ })
			} else {
				p.SetEventSink(nil)
			}
			for i := range 5000 {
				p.AddNode(fmt.Sprintf("node-%06d", i), vec(1<<30, 1<<44), resource.Vector{}, nil, true)
			}
			for i := range 100 {
				p.AddApp(AppRequest{ID: fmt.Sprint("app", i), Queue: fmt.Sprintf("root.q%d", i%10), User: "u"}, t0)
			}
			for i := range b.N {
				p.AddAsk(&app.Allocation{Key: fmt.Sprint("k", i), AppID: fmt.Sprint("app", i%100), Res: vec(1000, 1<<30)}, t0)
			}
			p.Out.Take()
			before := n
			b.ReportAllocs()
			b.ResetTimer()
			if got := p.Schedule(t0); got != b.N {
				b.Fatalf("allocated %d of %d", got, b.N)
			}
			b.StopTimer()
			if sink && n-before < b.N {
				b.Fatalf("%d events for %d decisions", n-before, b.N)
			}
		})
	}
}

// BenchmarkScheduleLogging is BenchmarkSchedule at 5000 nodes, 100 apps
// and 10 queues with the engine's loggers at their default level (info:
// the debug decision logs are off) and with none: a disabled debug log
// must cost a level check, no allocation.
func BenchmarkScheduleLogging(b *testing.B) {
	for _, logged := range []bool{false, true} {
		b.Run(fmt.Sprintf("loggers=%v", logged), func(b *testing.B) {
			p := mustPartition(b, benchConfig(10))
			if logged {
				p.SetLoggers(NewLoggers(logging.NewText(io.Discard).Logger))
			}
			for i := range 5000 {
				p.AddNode(fmt.Sprintf("node-%06d", i), vec(1<<30, 1<<44), resource.Vector{}, nil, true)
			}
			for i := range 100 {
				p.AddApp(AppRequest{ID: fmt.Sprint("app", i), Queue: fmt.Sprintf("root.q%d", i%10), User: "u"}, t0)
			}
			for i := range b.N {
				p.AddAsk(&app.Allocation{Key: fmt.Sprint("k", i), AppID: fmt.Sprint("app", i%100), Res: vec(1000, 1<<30)}, t0)
			}
			p.Out.Take()
			b.ReportAllocs()
			b.ResetTimer()
			if got := p.Schedule(t0); got != b.N {
				b.Fatalf("allocated %d of %d", got, b.N)
			}
		})
	}
}

// BenchmarkChurn is the shape of paddock bench's requests: asks come in
// rounds of 1,000, one per application in turn, and a pass places each
// round before the next arrives. At 1,000 applications every ask takes
// an idle application in (pending 0 -> 1) and its placement takes it out
// again, which BenchmarkSchedule (all asks before one pass) does not
// show. ns/op is the cost of one ask, intake included.
func BenchmarkChurn(b *testing.B) { churn(b, false) }

// BenchmarkMixedAsks is BenchmarkChurn with the asks of paddock bench's
// mixed scenarios: four shapes in turn, so an application's consecutive
// asks differ in shape.
func BenchmarkMixedAsks(b *testing.B) { churn(b, true) }

// mixedShapes are paddock bench's four mixed ask shapes (vcore, memory).
var mixedShapes = [4][2]int64{{1000, 1 << 30}, {500, 2 << 30}, {2000, 512 << 20}, {250, 256 << 20}}

// churn runs BenchmarkChurn, with the mixed shapes when mixed is set.
func churn(b *testing.B, mixed bool) {
	for _, apps := range []int{2, 100, 1000} {
		b.Run(fmt.Sprintf("nodes=5000/apps=%d/queues=10", apps), func(b *testing.B) {
			const round = 1000
			p := mustPartition(b, benchConfig(10))
			for i := range 5000 {
				p.AddNode(fmt.Sprintf("node-%06d", i), vec(1<<30, 1<<44), resource.Vector{}, nil, true)
			}
			ids := make([]string, apps)
			for i := range apps {
				ids[i] = fmt.Sprintf("app-%05d", i)
				p.AddApp(AppRequest{ID: ids[i], Queue: fmt.Sprintf("root.q%d", i%10), User: fmt.Sprint("user", i%50)}, t0)
			}
			p.Out.Take()
			asks := make([]app.Allocation, round)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i += round {
				n := min(round, b.N-i)
				for j := range n {
					sh := mixedShapes[0]
					if mixed {
						sh = mixedShapes[(i+j)%len(mixedShapes)]
					}
					asks[j] = app.Allocation{Key: "ask-" + strconv.Itoa(i+j), AppID: ids[(i+j)%apps], Res: vec(sh[0], sh[1])}
					if err := p.AddAsk(&asks[j], t0); err != nil {
						b.Fatal(err)
					}
				}
				if got := p.Schedule(t0); got != n {
					b.Fatalf("round %d: allocated %d of %d", i/round, got, n)
				}
				p.Out.Take()
				asks = make([]app.Allocation, round)
			}
		})
	}
}
