package metrics

import (
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/bench"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/events"
	"github.com/paddock-sched/paddock/internal/resource"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// BenchmarkHotPath measures what metrics and the event history cost the
// scheduler: the same end-to-end allocation run through the in-process SI
// with no hooks, with the metrics hooks, and with metrics plus the event
// ring. Compare allocs/s between the sub-benchmarks.
func BenchmarkHotPath(b *testing.B) {
	sc := bench.Scenario{Nodes: 5000, Asks: 100000, Apps: 100, Queues: 10}
	run := func(b *testing.B, setup func(*rmproxy.Service) (func(), error)) {
		var rate, ns float64
		for range b.N {
			r, err := bench.RunWith(sc, setup)
			if err != nil {
				b.Fatal(err)
			}
			rate += r.PerSecond
			ns += r.NsPerAlloc
		}
		b.ReportMetric(rate/float64(b.N), "allocs/s")
		b.ReportMetric(ns/float64(b.N), "ns/alloc")
	}
	b.Run("none", func(b *testing.B) { run(b, nil) })
	b.Run("metrics", func(b *testing.B) {
		run(b, func(svc *rmproxy.Service) (func(), error) {
			m := New(SnapshotSource{Service: svc}, nil)
			svc.SetHooks(m.Hooks())
			return nil, nil
		})
	})
	b.Run("metrics+events", func(b *testing.B) {
		run(b, func(svc *rmproxy.Service) (func(), error) {
			m := New(SnapshotSource{Service: svc}, nil)
			ev := events.New(events.Options{})
			for range events.DefaultRingCapacity {
				ev.AppendFrom(nil, &event.Record{ObjectID: "warm"})
			}
			h := m.Hooks()
			h.Event = func(_ string, reg *resource.Registry, r *event.Record) { ev.AppendFrom(reg, r) }
			svc.SetHooks(h)
			return nil, nil
		})
	})
}

// BenchmarkObserve measures the per-step and per-tally hook cost alone.
func BenchmarkObserve(b *testing.B) {
	m := New(nil, nil)
	t := &rmproxy.Tally{Allocated: 100, AppsAccepted: 1, Queues: map[rmproxy.QueueKey]*rmproxy.QueueTally{
		{Partition: "default", Queue: "root.a"}: {Allocated: 100}}}
	b.ReportAllocs()
	for b.Loop() {
		m.ObserveStep(time.Millisecond, 100)
		m.Count(t)
	}
}
