package rmproxy

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/partition"
	"github.com/paddock-sched/paddock/internal/core/snapshot"
)

// MaxRejectedApps is how many rejected applications are kept per RM for
// REST (the oldest go first); they also expire like terminated ones.
const MaxRejectedApps = 10000

// snapState publishes snapshots of the engine. The generation counts state
// changes: the owner bumps it after every batch of applied requests and
// every step that changed anything. A reader that finds the published
// snapshot at the current generation takes it; otherwise it asks the owner
// for a build and waits. Readers that ask while a build is requested share
// it, so any number of concurrent readers cost one build per generation.
type snapState struct {
	gen    atomic.Uint64
	latest atomic.Pointer[snapshot.Snapshot]
	builds atomic.Uint64 // snapshots built, for tests
	// maxAge (ns) lets readers take a published snapshot of an older
	// generation while it is younger than this; builtAt is when the
	// latest was published (Unix ns, wall clock).
	maxAge  atomic.Int64
	builtAt atomic.Int64

	// own serialises a manual service's owner work (Cycle, synchronous
	// calls) with snapshot builds requested by other goroutines.
	own sync.Mutex

	mu      sync.Mutex
	waiting chan struct{} // closed when the requested build is published

	// owned by the engine's goroutine (or holder of own)
	builder  snapshot.Builder
	passes   uint64
	info     map[string]snapshot.RMInfo
	rejected map[string][]*snapshot.App
	counters snapshot.Counters
}

// Generation returns the current state generation.
func (s *Service) Generation() uint64 { return s.snaps.gen.Load() }

// SetSnapshotMaxAge lets Snapshot return a snapshot of an older
// generation while it was built less than d ago (0, the default: always the
// current generation). It bounds the share of the scheduler goroutine that
// snapshot builds take when the state changes all the time and readers
// poll; REST then lags the scheduler by at most d.
func (s *Service) SetSnapshotMaxAge(d time.Duration) { s.snaps.maxAge.Store(int64(d)) }

// Snapshot returns a snapshot of the current generation, building it on
// the engine's goroutine when the published one is older (and, with
// SetSnapshotMaxAge, also older than the maximum age). Concurrent callers
// share one build. After Stop it returns the last snapshot published, or
// ErrStopped if there is none.
func (s *Service) Snapshot(ctx context.Context) (*snapshot.Snapshot, error) {
	return s.snapshot(ctx, true)
}

// CurrentSnapshot is Snapshot without the maximum age: the snapshot is of
// the generation current when it is called, for tests and tools that must
// see the effect of what they just did.
func (s *Service) CurrentSnapshot(ctx context.Context) (*snapshot.Snapshot, error) {
	return s.snapshot(ctx, false)
}

func (s *Service) snapshot(ctx context.Context, allowOld bool) (*snapshot.Snapshot, error) {
	st := &s.snaps
	if cur := st.latest.Load(); cur != nil {
		if cur.Generation == st.gen.Load() {
			return cur, nil
		}
		if age := st.maxAge.Load(); allowOld && age > 0 && time.Now().UnixNano()-st.builtAt.Load() < age {
			return cur, nil
		}
	}
	if s.manual {
		st.own.Lock()
		defer st.own.Unlock()
		s.publish(s.clk.Now())
		return st.latest.Load(), nil
	}
	st.mu.Lock()
	ch := st.waiting
	if ch == nil {
		ch = make(chan struct{})
		st.waiting = ch
	}
	st.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	select {
	case <-ch:
		return st.latest.Load(), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.done:
		if cur := st.latest.Load(); cur != nil {
			return cur, nil
		}
		return nil, ErrStopped
	}
}

// publish builds and publishes a snapshot unless the published one is
// current. Owner only.
func (s *Service) publish(now time.Time) {
	st := &s.snaps
	gen := st.gen.Load()
	if cur := st.latest.Load(); cur != nil && cur.Generation == gen {
		return
	}
	snap := st.builder.Build(s.eng, snapshot.Inputs{
		Generation: gen, Now: now, RMs: st.info, Rejected: st.rejected, Counters: st.counters,
	})
	st.builtAt.Store(time.Now().UnixNano())
	st.latest.Store(snap)
	st.builds.Add(1)
}

// serveSnapshots builds the snapshot readers wait for, if any. Owner only.
func (s *Service) serveSnapshots(now time.Time) {
	st := &s.snaps
	st.mu.Lock()
	ch := st.waiting
	st.waiting = nil
	st.mu.Unlock()
	if ch == nil {
		return
	}
	s.publish(now)
	close(ch)
}

// afterStep bumps the generation when the batch of work or the step
// changed anything, and counts the rejections about to be delivered.
// Owner only; call it after Step and before deliver.
func (s *Service) afterStep(work, made int) {
	st := &s.snaps
	changed := work > 0 || made > 0
	var passes uint64
	count := func(o *partition.Outbox) {
		if o == nil || o.Empty() {
			return
		}
		changed = true
		st.counters.RejectedAllocations += uint64(len(o.RejectedAllocs))
		st.counters.RejectedNodes += uint64(len(o.RejectedNodes))
	}
	for _, rm := range s.eng.Registered() {
		rm.PartitionsDo(func(p *partition.Partition) {
			passes += p.Stats.Passes
			count(&p.Out)
		})
		count(s.pending[rm.ID])
	}
	if passes != st.passes {
		st.passes = passes
		changed = true
	}
	if changed {
		st.gen.Add(1)
	}
}

// changedSync records a change made by a synchronous call.
func (s *Service) changedSync() { s.snaps.gen.Add(1) }

// noteRM records an RM's registration details; a re-registration forgets
// the rejected applications of the previous one. Owner only.
func (s *Service) noteRM(req *si.RegisterResourceManagerRequest, now time.Time) {
	st := &s.snaps
	if st.info == nil {
		st.info = map[string]snapshot.RMInfo{}
		st.rejected = map[string][]*snapshot.App{}
	}
	build := make(map[string]string, len(req.BuildInfo))
	for k, v := range req.BuildInfo {
		build[k] = v
	}
	st.info[req.RmID] = snapshot.RMInfo{Registered: now, BuildInfo: build}
	delete(st.rejected, req.RmID)
}

// noteRejected keeps the record of a rejected application. Owner only.
func (s *Service) noteRejected(rmID string, r partition.AppRequest, part, reason string, now time.Time) {
	st := &s.snaps
	if st.rejected == nil {
		st.rejected = map[string][]*snapshot.App{}
	}
	list := st.rejected[rmID]
	// drop expired records and keep at most MaxRejectedApps
	drop := 0
	for drop < len(list) && (now.Sub(list[drop].Finished) >= partition.ExpireAfter || len(list)-drop >= MaxRejectedApps) {
		drop++
	}
	if drop > 0 {
		list = append(list[:0:0], list[drop:]...)
	}
	st.rejected[rmID] = append(list, snapshot.Rejected(r.ID, part, r.Queue, r.User, r.Groups, r.Tags, reason, now))
}
