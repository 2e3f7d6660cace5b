package replay

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/rmproxy"
	"github.com/paddock-sched/paddock/internal/sim/borg/gen"
)

// TestLiveSameDecisions reads the replay's state through snapshots from
// another goroutine while it runs, as a server does: the decisions are
// the same as unobserved, the readers see the cell fill up, and the
// service stays readable after the replay ends.
func TestLiveSameDecisions(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.Generate(dir, gen.Options{Seed: 3, Machines: 60, Duration: 10 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	base, err := Run(Options{Trace: dir, Interval: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var svc *rmproxy.Service
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var maxNodes, reads int
	var times []time.Time
	allocs := map[int]bool{}
	live := func(s *rmproxy.Service, clk clock.Clock) error {
		svc = s
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				snap, err := s.CurrentSnapshot(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				reads++
				for _, p := range snap.Partitions {
					maxNodes = max(maxNodes, len(p.Nodes))
					allocs[p.Allocations] = true
				}
				if len(times) == 0 || !snap.Built.Equal(times[len(times)-1]) {
					times = append(times, snap.Built)
				}
				time.Sleep(time.Millisecond)
			}
		}()
		return nil
	}
	// paced to about a second, so the reader sees it move even when the
	// machine is busy
	got, err := Run(Options{Trace: dir, Interval: 5 * time.Second, Live: live, Speed: 600})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if got.LogHash != base.LogHash || got.Scheduled != base.Scheduled {
		t.Fatalf("observed replay decided differently: hash %s scheduled %d, unobserved %s %d", got.LogHash, got.Scheduled, base.LogHash, base.Scheduled)
	}
	if reads == 0 || maxNodes == 0 || len(allocs) < 2 || len(times) < 2 {
		t.Fatalf("%d reads saw at most %d nodes, %d allocation counts, %d times: the cell did not show or did not move", reads, maxNodes, len(allocs), len(times))
	}
	for i := 1; i < len(times); i++ {
		if times[i].Before(times[i-1]) {
			t.Fatalf("snapshot time went back: %v after %v", times[i], times[i-1])
		}
	}
	// the service is the caller's now: still readable, at the end state
	snap, err := svc.CurrentSnapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := epoch.Add(got.End); !snap.Built.Equal(want) {
		t.Fatalf("final snapshot at %v, want the replay's end %v", snap.Built, want)
	}
	var running int
	for _, p := range snap.Partitions {
		running += p.Allocations
	}
	if running != got.RunningAtEnd {
		t.Fatalf("final snapshot holds %d allocations, the replay ended with %d running", running, got.RunningAtEnd)
	}
	svc.Stop()
}

// TestSpeedPaces checks a paced replay takes at least its trace time over
// the speed, and that cancelling its context stops it.
func TestSpeedPaces(t *testing.T) {
	dir := fixture(t)
	// 600 s .. 900 s of trace time at 600x: at least half a second
	start := time.Now()
	s, err := Run(Options{Trace: dir, End: 900 * time.Second, Speed: 600})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 450*time.Millisecond {
		t.Fatalf("paced at 600x, %s of trace time took %s", s.End-600*time.Second, el)
	}
	unpaced, err := Run(Options{Trace: dir, End: 900 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if unpaced.LogHash != s.LogHash {
		t.Fatalf("pacing changed the decisions")
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = Run(Options{Trace: dir, End: 900 * time.Second, Speed: 10, Context: ctx})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled replay: %v, want context.Canceled", err)
	}
}
