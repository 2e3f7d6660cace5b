package replay

import (
	"testing"
	"time"
)

// BenchmarkReplayExcerpt replays the default window of the bundled trace
// (93 minutes of trace time) with the default model; docs/replay.md's "about
// 10 seconds" and the 30 s budget for all bundled task events (-end 0,
// BenchmarkReplayExcerptAll) on 2 cores are measured here.
func BenchmarkReplayExcerpt(b *testing.B) { benchReplay(b, 5598*time.Second) }

// BenchmarkReplayExcerptAll replays every bundled task event and the
// machine table to its end (29 days of trace time, mostly idle).
func BenchmarkReplayExcerptAll(b *testing.B) { benchReplay(b, 0) }

func benchReplay(b *testing.B, end time.Duration) {
	for b.Loop() {
		s, err := Run(Options{Trace: "../../traces/google-2011-excerpt", End: end})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(s.Scheduled), "scheduled/op")
		b.ReportMetric(s.Fidelity().Score, "fidelity")
	}
}

// BenchmarkPickRoundRobin: a throttled cycle, 5,000 ready asks of 500
// jobs at three priorities, 100 let through; the order is built once per
// cycle, so this is the ready queue's cost per cycle.
func BenchmarkPickRoundRobin(b *testing.B) {
	asks := make([]readyAsk, 5000)
	for i := range asks {
		asks[i] = readyAsk{t: &task{job: int64(i % 500), prio: int32(i % 3)}}
	}
	b.ReportAllocs()
	for b.Loop() {
		pickRoundRobin(asks, 100)
	}
}
