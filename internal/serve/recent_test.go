package serve

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/snapshot"
)

type countingSource struct {
	gen   uint64
	calls int
	fail  bool
}

func (c *countingSource) Snapshot(context.Context) (*snapshot.Snapshot, error) {
	c.calls++
	if c.fail {
		return nil, errors.New("stopped")
	}
	c.gen++
	return &snapshot.Snapshot{Generation: c.gen}, nil
}

func TestRecentSnapshots(t *testing.T) {
	src := &countingSource{}
	r := &recentSnapshots{src: src, maxAge: time.Hour}
	a, _ := r.Snapshot(context.Background())
	b, _ := r.Snapshot(context.Background())
	if a != b || src.calls != 1 {
		t.Fatalf("within max age: %d calls, same snapshot %v", src.calls, a == b)
	}
	r.at = time.Now().Add(-2 * time.Hour) // the snapshot ages
	c, _ := r.Snapshot(context.Background())
	if c.Generation != 2 || src.calls != 2 {
		t.Fatalf("after max age: generation %d, %d calls", c.Generation, src.calls)
	}
	r.at = time.Time{}
	src.fail = true
	if _, err := r.Snapshot(context.Background()); err == nil {
		t.Fatal("source error swallowed")
	}
	// no max age: always asks the source
	src.fail = false
	always := &recentSnapshots{src: src, maxAge: -1}
	always.Snapshot(context.Background())
	always.Snapshot(context.Background())
	if src.calls != 5 {
		t.Fatalf("negative max age cached: %d calls", src.calls)
	}
}
