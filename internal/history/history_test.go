package history

import (
	"context"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/snapshot"
)

func TestRingKeepsNewest(t *testing.T) {
	h := New(3)
	if s := h.Samples(); s == nil || len(s) != 0 {
		t.Fatalf("empty history = %v, want []", s)
	}
	for i := range 5 {
		h.Add(Sample{Apps: i})
	}
	got := h.Samples()
	if len(got) != 3 || got[0].Apps != 2 || got[2].Apps != 4 {
		t.Errorf("samples %+v, want apps 2,3,4", got)
	}
}

func TestCount(t *testing.T) {
	s := &snapshot.Snapshot{Partitions: []*snapshot.Partition{
		{Apps: []*snapshot.App{{State: app.Running}, {State: app.Accepted}}, Allocations: 5},
		{Apps: []*snapshot.App{{State: app.Completing}}, Done: []*snapshot.App{{State: app.Completed}}, Allocations: 2},
	}}
	now := time.Unix(10, 0)
	// only Running counts: the reference's running applications gauge
	if c := Count(s, now); c.Apps != 1 || c.Containers != 7 || !c.Time.Equal(now) {
		t.Errorf("count %+v", c)
	}
}

type one struct{ s *snapshot.Snapshot }

func (o one) Snapshot(context.Context) (*snapshot.Snapshot, error) { return o.s, nil }

func TestRunSamples(t *testing.T) {
	h := New(10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.Run(ctx, one{&snapshot.Snapshot{}}, clock.Real{}, time.Millisecond); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	for len(h.Samples()) < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	if n := len(h.Samples()); n < 3 {
		t.Errorf("%d samples after waiting, want at least 3", n)
	}
}
