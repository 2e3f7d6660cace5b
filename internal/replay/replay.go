// Package replay replays a Google Borg cluster trace through the real
// scheduler on virtual time. It is a resource manager like any other: it
// drives the engine only through the in-process SI API (a goroutine-free
// rmproxy service it cycles itself), holds no scheduling logic, and
// records what the scheduler decided for the report.
//
// # Fidelity
//
// A replay's baseline is only worth comparing against if it reproduces the
// cell it replays. Summary.Fidelity compares, per priority tier, the
// replay's scheduling delays (trace SUBMIT to the cycle that placed the
// task) with the trace's own (the same SUBMIT to the trace's SCHEDULE):
//
//   - KS: the two-sample Kolmogorov-Smirnov statistic, the largest gap
//     between the two empirical CDFs (0 the same distribution, 1 disjoint);
//   - LogRatio: the mean over p50, p90 and p99 of |log10(ours/trace)|, both
//     floored at FidelityFloor (1 s, one default cycle), so 1 means a
//     factor of 10 on average;
//   - Within: p50 and p90 both within WithinFactor (3x) of the trace's, or
//     within WithinSlack (10 s) where the trace's value is under 10 s.
//
// The run's fidelity score is 1 minus the tiers' KS weighted by the
// trace's task count per tier: 1 when every tier's delays are distributed
// as the trace's. A tier the trace has but the replay never placed counts
// as KS 1; a tier without trace delays is shown but not scored.
//
// # Resource model
//
// Options.Model says what the scheduler is asked for (see Model): by
// default (ModelReclaim) prod tiers their requests and non-prod tiers an
// estimated reservation, after a submission latency, as Borg schedules
// non-prod work in resources reclaimed from what prod reserved but does
// not use; ModelLimits is the replay before the model. The reclaim model
// also gives the mid, production and monitoring tiers a latency tail
// (tail.go): the 2011 cell takes half a minute or more to place a tenth
// of its production tasks while it has room for them; it lets asks
// through to the scheduler at Borg's throughput (throughput.go), highest
// priority first. Its parameters are assumptions or measurements of the
// bundled 2011 cell (parts 0-1), checked on the cell's parts 2-3 (not
// bundled; scripts/replay-windows, docs/replay.md) and on generated
// 2019-format cells. Options.ReserveAfter (not the default) charges a new
// non-prod task its full request for a while, as Borg's reservation
// starts at the limit (reserve.go).
//
// A task the trace ends (an eviction, a failure, a kill) and submits again
// while the replay still runs it ends with the replay too, and its new
// submission is a new ask. A task with the trace's different-machines
// restriction is placed on no node where a task of its job runs
// (spread.go), in either model.
//
// # Whose delay
//
// Every placed task's delay (Summary.Delays) is the sum of the modelled
// latency before its ask reached the scheduler (Summary.ModelDelays: the
// submission latency, the tail, the wait for the throughput, a 2019 batch
// scheduler's queueing) and the scheduler's own wait from there to the
// cycle that placed it (Summary.SchedDelays). The fidelity compares the
// sum with the trace; a change of queue configuration changes the second.
// Options.Seed varies the model's random draws (the tail's).
//
// # Windows
//
// Options.Start opens a window later in the trace. With Options.Warmup
// the events before it are replayed first, so the cell at Start is the
// trace's, and only the delays of tasks submitted from Start count;
// without it they are skipped (the tasks running at trace start then
// never end before Start).
//
// On 2019 traces a job Borg's batch scheduler QUEUEs reaches the scheduler
// only at the trace's ENABLE (gate.go), in either model.
//
// # Watching it live
//
// Options.Live hands the scheduler service and the virtual clock to a
// server before the replay starts (paddock replay -serve): REST, metrics
// and a web UI read the replay's state through snapshots, consistent at one
// virtual instant, while Options.Speed paces trace time against the wall
// clock. Observed or not, paced or not, the decisions are the same.
//
// # Virtual time
//
// The replay cycles the scheduler on a grid of Options.Interval, but only
// where something can happen: a trace event, a task end, an ask's
// submission latency ending or a scheduler timer. Idle cycles are skipped
// with the same decisions (the same decision-log hash) as ticking every
// interval.
package replay

import (
	"container/heap"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/rmproxy"
	"github.com/paddock-sched/paddock/internal/sim/borg"
)

// Options configure a replay.
type Options struct {
	// Trace is the trace directory (2011 CSV or 2019 JSON export).
	Trace string
	// Config is the queues.yaml text; "" uses DefaultConfig.
	Config string
	// Start and End bound the replayed trace time (End 0: everything).
	Start, End time.Duration
	// Warmup replays the events before Start too, so the cell is in the
	// trace's state at Start, and counts only the delays of tasks
	// submitted from Start on. Without it the replay skips them: the
	// tasks running at trace start then never end before Start and the
	// tasks submitted before it never run, so the cell at Start is not
	// the trace's.
	Warmup bool
	// Interval is the trace time between scheduling cycles (default 1 s).
	Interval time.Duration
	// CPUScale and MemScale turn the trace's normalised capacities and
	// requests into integer resources: millicores and bytes for 1.0.
	CPUScale, MemScale float64
	// Model is the resource model (see Model): ModelReclaim (default)
	// or ModelLimits, the replay's behaviour before reclamation.
	Model Model
	// ProdReservation and NonProdReservation are the reclaim model's
	// shares of a request the scheduler is asked for (zero: the
	// defaults DefaultProdReservation, DefaultNonProdReservation).
	ProdReservation, NonProdReservation Reservation
	// CPUOvercommit multiplies the CPU capacity of every node. The tasks
	// running at the start of the 2011 trace request about 103% of the
	// cell's CPU, so charged their full requests no new task could ever
	// start: the limits model overcommits by DefaultCPUOvercommit (1.5).
	// 0 is the model's default (reclaim: 1, none).
	CPUOvercommit float64
	// MemOvercommit multiplies the memory capacity of every node
	// (0: DefaultMemOvercommit, 1).
	MemOvercommit float64
	// SubmitLatency is how long after its submission in the trace a task's
	// ask reaches the scheduler (see Model); the reclaim model's default is
	// DefaultSubmitLatency, the limits model's 0. Negative: none.
	SubmitLatency time.Duration
	// TaskLatency spaces the asks of one job submitted together: each
	// reaches the scheduler TaskLatency after the job's previous one (the
	// reclaim model's default DefaultTaskLatency; negative: none).
	TaskLatency time.Duration
	// ProdTaskLatency is TaskLatency for the prod tiers' jobs (the reclaim
	// model's default DefaultProdTaskLatency; negative: none).
	ProdTaskLatency time.Duration
	// TailP90 is the p90 of the submission latency of the tiers in
	// TailTiers, lognormal with median SubmitLatency (see tail.go; the
	// reclaim model's default DefaultTailP90; negative or not above
	// SubmitLatency: no tail, every task waits SubmitLatency).
	TailP90 time.Duration
	// TailMax caps the tail latency (the reclaim model's default
	// DefaultTailMax; negative: no cap).
	TailMax time.Duration
	// TailTiers names the tiers with the latency tail (nil:
	// DefaultTailTiers; empty: none).
	TailTiers []string
	// ReserveAfter is how long after its placement a non-prod task of the
	// reclaim model is charged its full request before its reservation, as
	// Borg's reservation starts at the limit (reserve.go; BorgReserveAfter
	// is Borg's). Zero or negative: the reservation from the start (the
	// default).
	ReserveAfter time.Duration
	// SchedRate is the scheduler's throughput in the reclaim model: at
	// most this many asks a second of trace time reach the scheduler,
	// highest priority first (throughput.go; 0: DefaultSchedRate on 2011
	// traces, where it was measured, no limit on 2019 ones; negative: no
	// limit).
	SchedRate float64
	// SchedBurst is how many asks the scheduler can take at once after a
	// quiet spell (the default DefaultSchedBurst; at least one).
	SchedBurst float64
	// ClassRate is the scheduler's throughput in equivalence classes (a
	// job's tasks with the same request) a second of trace time, on top of
	// SchedRate (classes.go; 0: DefaultClassRate on 2011 traces, no limit
	// on 2019 ones; negative: no limit). It applies only with SchedRate.
	ClassRate float64
	// ClassBurst is how many classes the scheduler takes at once after a
	// quiet spell (the default DefaultClassBurst; at least one).
	ClassBurst float64
	// Seed varies the model's random draws (the latency tail's): the draw
	// of a task is a function of its ask key and Seed, so the same seed
	// gives the same decisions. Seed 0 is the replay's default draw.
	Seed uint64
	// Sample is the trace time between samples of the time series
	// (default 1 minute).
	Sample time.Duration
	// Progress, when set, is called every few thousand events with the
	// trace time reached.
	Progress func(now, end time.Duration)
	// Log, when set, receives the decision log (one line per decision).
	Log io.Writer
	// Verify checks the engine's invariants after every cycle (slow; for
	// tests). The first violation ends the replay with an error.
	Verify bool
	// Live, when set, is called with the scheduler service and its
	// virtual clock before the replay registers its RM, to serve the
	// replay's state while it runs (paddock replay -serve: REST, metrics
	// and a web UI read it through snapshots). The replay then leaves the
	// service running when it ends, for the caller to stop; an error from
	// Live ends the replay before it starts.
	Live func(svc *rmproxy.Service, clk clock.Clock) error
	// Speed paces the replay on the wall clock: trace time runs Speed
	// times as fast as real time (60: a trace minute a second), so a
	// person can watch it. 0 runs as fast as possible. The decisions are
	// the same at any speed.
	Speed float64
	// Context, when set, stops the replay when it is done (Run returns
	// its error).
	Context context.Context

	tail [5]bool // TailTiers by tier index (the five tiers of tiers.go)

	// tickIdle cycles at every interval even when nothing can happen (the
	// replay before idle skipping; tests compare the two).
	tickIdle bool
}

// Defaults: 1.0 normalised CPU is a 64-core machine, 1.0 memory 256 GiB.
const (
	DefaultCPUOvercommit = 1.5
	DefaultCPUScale      = 64000
	DefaultMemScale      = 256 << 30
)

// epoch is the virtual time of trace time 0: the 2011 trace window starts
// at t = 600 s, 2011-05-01 23:00 UTC.
var epoch = time.Date(2011, 5, 1, 22, 50, 0, 0, time.UTC)

const rmID = "borg-replay"

// task is the replay's state of one trace task.
type task struct {
	key    string
	app    string
	job    int64
	index  int64  // the task's index in its job
	user   string // the trace's user of the submission, "" none
	tier   int
	submit time.Duration // trace time of the current submission
	// traceSubmit is the trace time of the trace's latest SUBMIT not yet
	// followed by a SCHEDULE, -1 none: the trace's own delay counts from
	// it even when the replay still holds an earlier submission.
	traceSubmit time.Duration
	traceRun    time.Duration // trace SCHEDULE time of the current run, -1 none
	duration    time.Duration // how long the trace ran it, -1 unknown yet
	ended       bool          // the trace ended this run
	sent        bool          // submitted to the scheduler (maybe still held)
	held        bool          // sent, but waiting out SubmitLatency
	allocAt     time.Duration // when our scheduler placed it, -1 not yet
	reachAt     time.Duration // when its ask reached the scheduler (the model's latency over)
	node        string
	gen         int // submission count, part of the ask key
	cpu, mem    float64
	prio        int32
	recover     string // machine of a task running at trace start
	spread      bool   // the trace's different-machines restriction (spread.go)
}

// release is a scheduled end of a running task.
type release struct {
	at  time.Duration
	seq uint64
	t   *task
	gen int
}

type releaseHeap []release

func (h releaseHeap) Len() int { return len(h) }
func (h releaseHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h releaseHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *releaseHeap) Push(x any)   { *h = append(*h, x.(release)) }
func (h *releaseHeap) Pop() any     { o := *h; x := o[len(o)-1]; *h = o[:len(o)-1]; return x }
func (h releaseHeap) peek() release { return h[0] }

// sim is one replay run.
type sim struct {
	opts      Options
	clk       *clock.Virtual
	svc       *rmproxy.Service
	now       time.Duration
	tasks     map[taskID]*task
	byKey     map[string]*task
	apps      map[int64]string // job ID -> application ID
	appJob    map[string]int64
	rel       releaseHeap
	held      releaseHeap              // asks waiting out the submission latency
	shrink    releaseHeap              // tasks charged their limit until their reservation starts (reserve.go)
	jobBusy   map[string]time.Duration // application -> when its next held ask may go
	relSeq    uint64
	log       hash.Hash
	logOut    io.Writer
	stats     *Summary
	nodes     map[int64]bool
	queued    queuedReqs
	cb        *recorder
	initial   []*task // tasks submitted at trace time 0
	verifyErr error
	v2019     bool
	jobUsers  map[int64]string // 2019: user of each live collection
	// gated are the 2019 jobs the batch scheduler has queued and not yet
	// enabled, with the tasks waiting for the ENABLE (gate.go)
	gated    map[int64][]gatedTask
	users    map[string]bool
	appQueue map[string]string // application ID -> the leaf queue it was placed in
	placed   []placedTask      // allocated in this cycle, queue not yet looked up

	// onNode counts the running tasks of each job on each node, for the
	// different-machines restriction (spread.go)
	onNode map[jobNode]int
	// cycleOn counts the nodes the RM allowed jobs in the cycle under way
	cycleOn map[jobNode]int

	readyQ       []readyAsk    // asks waiting for the scheduler's throughput
	lastDispatch time.Duration // the cycle that last let ready asks through
	tokens       float64       // the throughput available now, in asks
	classTokens  float64       // and in equivalence classes (classes.go)
	tokensSet    bool
}

// placedTask is a task the scheduler placed, counted under its queue after
// the cycle.
type placedTask struct {
	app   string
	delay time.Duration
}

type taskID struct{ job, index int64 }

type queuedReqs struct {
	nodes   []*si.NodeInfo
	apps    []*si.AddApplicationRequest
	asks    []*si.Allocation
	release []*si.AllocationRelease
}

// Run replays the trace and returns what it measured.
func Run(opts Options) (*Summary, error) {
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	if opts.CPUScale <= 0 {
		opts.CPUScale = DefaultCPUScale
	}
	if opts.MemScale <= 0 {
		opts.MemScale = DefaultMemScale
	}
	tr, err := borg.Open(opts.Trace)
	if err != nil {
		return nil, err
	}
	if tr.Format() == borg.Format2019 {
		// the default throughput is the 2011 cell's (throughput.go)
		if opts.SchedRate == 0 {
			opts.SchedRate = -1
		}
		if opts.ClassRate == 0 {
			opts.ClassRate = -1
		}
	}
	opts.setModelDefaults()
	if opts.Sample <= 0 {
		opts.Sample = time.Minute
	}
	if opts.Config == "" {
		opts.Config = DefaultConfig
	}
	w := borg.Window{Start: 0, End: opts.End.Microseconds()}
	st, err := tr.Stream(w)
	if err != nil {
		return nil, err
	}
	defer st.Close()

	s := &sim{
		opts:   opts,
		clk:    clock.NewVirtual(epoch),
		tasks:  map[taskID]*task{},
		byKey:  map[string]*task{},
		apps:   map[int64]string{},
		appJob: map[string]int64{},
		log:    sha256.New(),
		nodes:  map[int64]bool{},
		stats:  newSummary(opts),
		v2019:  tr.Format() == borg.Format2019,

		jobUsers: map[int64]string{},
		gated:    map[int64][]gatedTask{},
		users:    map[string]bool{},
		appQueue: map[string]string{},
		jobBusy:  map[string]time.Duration{},
		onNode:   map[jobNode]int{},
		cycleOn:  map[jobNode]int{},
	}
	s.logOut = opts.Log
	s.stats.Format = tr.Format().String()
	s.svc = rmproxy.NewManual(s.clk)
	if opts.Live != nil {
		if err := opts.Live(s.svc, s.clk); err != nil {
			s.svc.Stop()
			return nil, fmt.Errorf("replay: live: %w", err)
		}
	} else {
		defer s.svc.Stop()
	}
	s.cb = &recorder{s: s}
	if _, err := s.svc.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: rmID, Config: opts.Config}, s.cb); err != nil {
		return nil, fmt.Errorf("replay: register: %w", err)
	}
	wall := time.Now()
	if err := s.loop(st); err != nil {
		return nil, err
	}
	if s.verifyErr != nil {
		return nil, fmt.Errorf("replay: scheduler invariants broken: %w", s.verifyErr)
	}
	s.stats.finish(s, time.Since(wall), st.Stats())
	return s.stats, nil
}

// loop processes the events interval by interval: every event and task
// end within an interval is queued, then the scheduler cycles once at the
// interval's end.
func (s *sim) loop(st *borg.Stream) error {
	next := time.Duration(-1) // end of the interval being filled
	nextSample := time.Duration(0)
	var events int
	var failed error
	pace := newPacer(s.opts.Speed, s.opts.Context)
	flush := func(at time.Duration) {
		if err := pace.wait(at); err != nil && failed == nil {
			failed = err
		}
		s.advance(at)
		if s.initial != nil {
			s.emitInitial()
		}
		s.cycle()
		for nextSample <= at {
			s.stats.sample(s, nextSample)
			nextSample += s.opts.Sample
		}
	}
	for {
		ev, err := st.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		t := time.Duration(ev.Time) * time.Microsecond
		if t < s.opts.Start && t > 0 && !s.opts.Warmup {
			continue
		}
		if next < 0 {
			next = t
		}
		for t > next {
			// the interval is complete: its releases, then a cycle
			s.releasesUntil(next)
			s.shrinkUntil(next)
			s.deliverUntil(next)
			flush(next)
			next += s.opts.Interval
			if t > next && len(s.rel)+len(s.shrink) == 0 && s.stats.pendingNow == 0 {
				next = t // nothing to do in between: jump
			} else if t > next {
				next = s.skipIdle(next, t, &nextSample)
			}
		}
		if failed != nil {
			return fmt.Errorf("replay: stopped at trace time %s: %w", s.now, failed)
		}
		s.handle(ev, t)
		events++
		if s.opts.Progress != nil && events%5000 == 0 {
			s.opts.Progress(t, s.opts.End)
		}
	}
	// drain: the trace ended; keep cycling until the remaining releases
	// within the window are done
	end := next
	if s.opts.End > 0 {
		end = max(end, s.opts.End)
	}
	for at := next; at <= end; {
		s.releasesUntil(at)
		s.shrinkUntil(at)
		s.deliverUntil(at)
		flush(at)
		if failed != nil {
			return fmt.Errorf("replay: stopped at trace time %s: %w", s.now, failed)
		}
		at = s.skipIdle(at+s.opts.Interval, end+1, &nextSample)
	}
	s.now = end
	return nil
}

// skipIdle returns the first cycle time on the grid next, next+Interval,
// ... at which something can happen: the trace's next event at until, the
// next task end, or the scheduler's next timer. The cycles skipped would
// have decided nothing: nothing is queued for the scheduler and it has
// nothing to retry (not dirty). The samples due at the skipped cycles are
// taken now, from the unchanged state.
func (s *sim) skipIdle(next, until time.Duration, nextSample *time.Duration) time.Duration {
	q := &s.queued
	if s.opts.tickIdle || s.initial != nil || len(q.nodes)+len(q.apps)+len(q.asks)+len(q.release) > 0 {
		return next
	}
	target := until
	if len(s.rel) > 0 {
		target = min(target, s.rel.peek().at)
	}
	if len(s.held) > 0 {
		target = min(target, s.held.peek().at)
	}
	if len(s.shrink) > 0 {
		target = min(target, s.shrink.peek().at)
	}
	if len(s.readyQ) > 0 {
		return next // asks wait for the throughput: the next cycle lets some through
	}
	if target <= next {
		return next
	}
	var dirty bool
	var timer time.Time
	s.svc.Inspect(func(e *engine.Engine) { dirty, timer = e.Dirty(), e.NextTimer() })
	if dirty {
		return next
	}
	if !timer.IsZero() {
		target = min(target, timer.Sub(epoch))
	}
	if target <= next {
		return next
	}
	iv := s.opts.Interval
	to := next + (target-next+iv-1)/iv*iv
	for *nextSample <= to-iv {
		s.stats.sample(s, *nextSample)
		*nextSample += s.opts.Sample
	}
	s.stats.Skipped += int((to - next) / iv)
	return to
}

func (s *sim) advance(at time.Duration) {
	if at > s.now {
		s.now = at
	}
	s.clk.Set(epoch.Add(s.now))
}

// cycle sends what is queued and lets the scheduler run once.
func (s *sim) cycle() {
	q := &s.queued
	if len(q.nodes) > 0 {
		s.svc.UpdateNode(&si.NodeRequest{RmID: rmID, Nodes: q.nodes})
	}
	if len(q.apps) > 0 {
		s.svc.UpdateApplication(&si.ApplicationRequest{RmID: rmID, New: q.apps})
	}
	if len(q.asks) > 0 || len(q.release) > 0 {
		req := &si.AllocationRequest{RmID: rmID, Allocations: q.asks}
		if len(q.release) > 0 {
			req.Releases = &si.AllocationReleasesRequest{AllocationsToRelease: q.release}
		}
		s.svc.UpdateAllocation(req)
	}
	*q = queuedReqs{}
	s.svc.Cycle()
	clear(s.cycleOn) // the cycle's placements are delivered (onNode)
	s.stats.Cycles++
	if len(s.placed) > 0 {
		s.queueDelays()
	}
	if s.opts.Verify && s.verifyErr == nil {
		s.svc.Inspect(func(e *engine.Engine) { s.verifyErr = e.Verify() })
	}
}

// queueDelays counts the delays of the tasks placed in the last cycle
// under the leaf queue their application was placed in (placement rules
// decide it, not the queue the replay asked for).
func (s *sim) queueDelays() {
	var missing []string
	for _, p := range s.placed {
		if _, ok := s.appQueue[p.app]; !ok {
			missing = append(missing, p.app)
		}
	}
	if len(missing) > 0 {
		s.svc.Inspect(func(e *engine.Engine) {
			part, err := e.Partition(rmID, "")
			if err != nil {
				return
			}
			for _, id := range missing {
				if a, ok := part.App(id); ok {
					s.appQueue[id] = a.QueuePath
				}
			}
		})
	}
	for _, p := range s.placed {
		q := s.appQueue[p.app]
		if q == "" {
			q = "(unknown)"
		}
		s.stats.QueueDelays[q] = append(s.stats.QueueDelays[q], p.delay)
	}
	s.placed = s.placed[:0]
}

// decision writes one line of the decision log.
func (s *sim) decision(kind, key, node string) { s.decisionAt(s.now, kind, key, node) }

func (s *sim) decisionAt(at time.Duration, kind, key, node string) {
	line := strconv.FormatInt(at.Microseconds(), 10) + " " + kind + " " + key + " " + node + "\n"
	s.log.Write([]byte(line))
	if s.logOut != nil {
		io.WriteString(s.logOut, line)
	}
}

// releasesUntil queues the release of every task whose run ends by at.
func (s *sim) releasesUntil(at time.Duration) {
	for len(s.rel) > 0 && s.rel.peek().at <= at {
		r := heap.Pop(&s.rel).(release)
		if r.t.gen != r.gen || r.t.allocAt < 0 {
			continue
		}
		s.endRun(r.t, r.at)
	}
}

// endRun releases the allocation of a running task at trace time at.
func (s *sim) endRun(t *task, at time.Duration) {
	s.queued.release = append(s.queued.release, &si.AllocationRelease{
		ApplicationID: t.app, AllocationKey: t.key, TerminationType: si.TerminationType_STOPPED_BY_RM,
	})
	s.decisionAt(at, "release", t.key, t.node)
	s.leave(t)
	delete(s.byKey, t.key)
	t.allocAt = -1
	t.sent = false
	s.stats.running--
}

// deliverUntil queues the asks whose submission latency is over by at, as
// many as the scheduler's throughput lets through (throughput.go); an
// application that completed while its ask was held is created again, as
// a new submission would.
func (s *sim) deliverUntil(at time.Duration) {
	for len(s.held) > 0 && s.held.peek().at <= at {
		h := heap.Pop(&s.held).(release)
		if t := h.t; t.gen == h.gen && t.held {
			if s.gate(t) {
				continue
			}
			s.ready(t, h.at)
		}
	}
	if s.opts.SchedRate > 0 {
		s.dispatch(at)
	}
}

// scheduleRelease plans the end of a running task: it ends after running
// as long as it ran in the trace.
func (s *sim) scheduleRelease(t *task) {
	if t.allocAt < 0 || t.duration < 0 {
		return
	}
	s.relSeq++
	heap.Push(&s.rel, release{at: t.allocAt + t.duration, seq: s.relSeq, t: t, gen: t.gen})
}

func (s *sim) traceVersion2019() bool { return s.v2019 }
