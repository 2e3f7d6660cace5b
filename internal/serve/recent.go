package serve

import (
	"context"
	"sync"
	"time"

	"github.com/paddock-sched/paddock/internal/core/snapshot"
)

// snapshotSource gives snapshots (rmproxy.Service).
type snapshotSource interface {
	Snapshot(ctx context.Context) (*snapshot.Snapshot, error)
}

// recentSnapshots hands readers the last snapshot while it is younger
// than maxAge, so readers polling a scheduler whose state changes all the
// time cost at most one snapshot build per maxAge instead of one per
// state change; REST then lags the scheduler by at most maxAge.
type recentSnapshots struct {
	src    snapshotSource
	maxAge time.Duration

	mu   sync.Mutex
	last *snapshot.Snapshot
	at   time.Time
}

func (r *recentSnapshots) Snapshot(ctx context.Context) (*snapshot.Snapshot, error) {
	if r.maxAge > 0 {
		r.mu.Lock()
		last, at := r.last, r.at
		r.mu.Unlock()
		if last != nil && time.Since(at) < r.maxAge {
			return last, nil
		}
	}
	s, err := r.src.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.last == nil || s.Generation >= r.last.Generation {
		r.last, r.at = s, time.Now()
	}
	r.mu.Unlock()
	return s, nil
}
