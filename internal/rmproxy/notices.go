package rmproxy

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"golang.org/x/time/rate"
)

// An RM's notices, the autoscaling hints (UpdateContainerSchedulingState)
// and the events (SendEvent), go on a lane of their own: a second
// goroutine of its courier. They inform the RM and decide nothing, and an
// RM may take long over each (the Kubernetes shim writes a pod's status to
// the API server inside UpdateContainerSchedulingState), so a decision
// (an allocation, a release, an application's state) never waits behind
// one, and a slow notice never makes the RM look stalled: only the
// decision lane's callbacks pause its scheduling.
//
// The lane is bounded: it holds at most MaxHeld notices (hints and
// events counted one each), and drops what comes past that, counting it
// (Service.DroppedNotices), rather than grow without limit while the RM
// is slow. Hints are sent at most HintRate per second per RM (bursts of
// HintBurst): each asks the RM for a write to its cluster, and a wave of
// asks that fit no node must not become a wave of writes that slows the
// RM's own binds. Each ask is hinted once (partition.reportWaiting).

// HintRate and HintBurst bound the autoscaling hints sent to one RM.
const (
	HintRate  = 100
	HintBurst = 100
)

// notice is one hand-over of notices: its hints, then its events.
type notice struct {
	cb      api.ResourceManagerCallback
	waiting []*si.UpdateContainerSchedulingStateRequest
	events  []*si.EventRecord
}

func (n *notice) items() int { return len(n.waiting) + len(n.events) }

// noticeLane sends one RM's notices on its own goroutine.
type noticeLane struct {
	mu      sync.Mutex
	queue   []notice
	held    int // hints and events queued or being sent
	max     int
	dropped struct{ hints, events uint64 }

	limit   *rate.Limiter
	ctx     context.Context // cancelled by retire: a wait for the limit ends
	cancel  context.CancelFunc
	wake    chan struct{}
	stop    atomic.Bool
	retired atomic.Bool
	exited  chan struct{}
}

func newNoticeLane(max int) *noticeLane {
	ctx, cancel := context.WithCancel(context.Background())
	l := &noticeLane{
		max: max, limit: rate.NewLimiter(HintRate, HintBurst),
		ctx: ctx, cancel: cancel,
		wake: make(chan struct{}, 1), exited: make(chan struct{}),
	}
	go l.run()
	return l
}

// hand queues n, or as much of it as the bound leaves room for; what is
// left out is counted as dropped. It reports whether anything was dropped.
func (l *noticeLane) hand(n notice) bool {
	l.mu.Lock()
	room := l.max - l.held
	dropped := false
	if n.items() > room {
		dropped = true
		room = max(room, 0)
		keep := min(len(n.waiting), room)
		l.dropped.hints += uint64(len(n.waiting) - keep)
		n.waiting = n.waiting[:keep]
		room -= keep
		keep = min(len(n.events), room)
		l.dropped.events += uint64(len(n.events) - keep)
		n.events = n.events[:keep]
	}
	if n.items() > 0 {
		l.held += n.items()
		l.queue = append(l.queue, n)
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return dropped
}

// backlog reports whether the lane holds as much as it may.
func (l *noticeLane) backlog() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held >= l.max
}

func (l *noticeLane) run() {
	defer close(l.exited)
	for {
		l.mu.Lock()
		batch := l.queue
		l.queue = nil
		l.mu.Unlock()
		if len(batch) == 0 {
			if l.stop.Load() {
				return
			}
			<-l.wake
			continue
		}
		for i := range batch {
			if l.retired.Load() {
				return
			}
			l.send(&batch[i])
			l.mu.Lock()
			l.held -= batch[i].items()
			l.mu.Unlock()
			batch[i] = notice{}
		}
	}
}

// send makes n's calls: each hint once the rate allows it.
func (l *noticeLane) send(n *notice) {
	for _, w := range n.waiting {
		if l.limit.Wait(l.ctx) != nil {
			return // retired
		}
		n.cb.UpdateContainerSchedulingState(w)
	}
	if len(n.events) > 0 {
		n.cb.SendEvent(n.events)
	}
}

// retire makes the goroutine drop what it holds and exit once the call
// running returns.
func (l *noticeLane) retire() {
	l.retired.Store(true)
	l.stop.Store(true)
	l.cancel()
	l.mu.Lock()
	l.queue, l.held = nil, 0
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// finish makes the goroutine exit once it has sent what is queued.
func (l *noticeLane) finish() {
	l.stop.Store(true)
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// DroppedNotices returns how many autoscaling hints and events of an RM
// its notice lane dropped because it held MaxHeld of them.
func (s *Service) DroppedNotices(rmID string) (hints, events uint64) {
	_ = s.call(func(time.Time) error {
		if c := s.couriers[rmID]; c != nil {
			c.notices.mu.Lock()
			hints, events = c.notices.dropped.hints, c.notices.dropped.events
			c.notices.mu.Unlock()
		}
		return nil
	})
	return hints, events
}
