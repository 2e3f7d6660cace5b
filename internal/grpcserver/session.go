package grpcserver

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/cbwire"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// RMState is a remote RM's state in the spec's lifecycle.
type RMState string

// The lifecycle states.
const (
	RMRunning RMState = "Running"
	RMPaused  RMState = "Paused"
	RMStopped RMState = "Stopped"
)

// RMStatus describes one remote RM, for REST and tests.
type RMStatus struct {
	RmID          string
	State         RMState
	Since         time.Time // when it entered State
	Registered    time.Time // when its current registration was made
	OpenStreams   []string  // method names of its attached streams, sorted
	Buffered      int       // responses waiting for a stream
	DroppedEvents int64     // SendEvent records and scheduling-state updates not delivered
	// Callbacks are the callbacks the RM asked the server to relay on its
	// Callbacks stream (relay.go), CallbacksOpen whether that stream is
	// open, and Unanswered counts the Predicates and PreemptionPredicates
	// calls that got no reply (timed out, refused at once while the RM was
	// stalled or disconnected): each refused its node or plan.
	Callbacks     []string
	CallbacksOpen bool
	Unanswered    int64
	Parked        int    // asks, allocations and releases waiting for their application or node
	Reason        string // why it is Stopped
}

// kind is one of the three SI streams.
type kind int

const (
	kindAllocation kind = iota
	kindApplication
	kindNode
	numKinds
)

var kindNames = [numKinds]string{"UpdateAllocation", "UpdateApplication", "UpdateNode"}

func (k kind) String() string { return kindNames[k] }

// rmEntry is the server's record of one rmID across its registrations.
type rmEntry struct {
	id string
	// fwd is held for writing while the RM registers and for reading while
	// a stream forwards a message, so that no message of an old session
	// reaches the scheduler after the new registration.
	fwd  sync.RWMutex
	sess *session // current registration; guarded by Server.mu (and fwd to write)
	// registering counts the registrations under way; guarded by
	// Server.mu. An entry without a session is removed when the last one
	// fails.
	registering int
}

// session is one registration of an RM: the callback the scheduler
// reports to, the responses waiting for streams and the lifecycle state.
// All fields after srv are guarded by Server.mu.
type session struct {
	srv        *Server
	entry      *rmEntry
	registered time.Time
	// epoch numbers the registration (cbwire.RegistrationHeader); set
	// under Server.mu when the session becomes the RM's current one
	epoch uint64
	ord   *order // cross-stream order (park.go); has its own lock

	// the Callbacks stream (relay.go), read on the scheduler's goroutine
	// without Server.mu
	want       atomic.Uint32 // cbwire.Set the RM asked for; kept when the stream ends
	relay      atomic.Pointer[relay]
	stallUntil atomic.Int64 // unix ns: calls unanswered at once until then
	unanswered atomic.Int64

	state      RMState
	since      time.Time
	reason     string
	superseded bool // a newer registration replaced it
	slots      [numKinds]slot
	cancel     func() bool // pending reconnect timeout
	pauseGen   int
	dropped    int64
}

// slot is one stream kind of a session.
type slot struct {
	pending []proto.Message // responses not yet sent
	att     *attachment     // the open stream, if any
	lost    bool            // the stream broke and has not been reopened
	clean   bool            // the RM closed the stream (half-close)
}

// attachment is one open stream of a session.
type attachment struct {
	sess   *session
	kind   kind
	notify chan struct{} // pending responses to send (capacity 1)
	end    chan struct{} // closed when the server ends the stream
	endErr error         // status the stream ends with; guarded by Server.mu
}

var (
	_ api.ResourceManagerCallback = (*session)(nil)
	_ rmproxy.Asker               = (*session)(nil)
	_ rmproxy.Remote              = (*session)(nil)
)

func newSession(s *Server, e *rmEntry, now time.Time) *session {
	return &session{srv: s, entry: e, registered: now, state: RMRunning, since: now, ord: newOrder()}
}

// UpdateAllocation queues an allocation response for the RM's stream.
func (ss *session) UpdateAllocation(r *si.AllocationResponse) error {
	return ss.push(kindAllocation, r)
}

// UpdateApplication queues an application response for the RM's stream.
func (ss *session) UpdateApplication(r *si.ApplicationResponse) error {
	return ss.push(kindApplication, r)
}

// UpdateNode queues a node response for the RM's stream.
func (ss *session) UpdateNode(r *si.NodeResponse) error { return ss.push(kindNode, r) }

func (ss *session) drop(n int64) {
	ss.srv.mu.Lock()
	ss.dropped += n
	ss.srv.mu.Unlock()
}

// push queues a response; called on the scheduler's goroutine, never blocks.
func (ss *session) push(k kind, msg proto.Message) error {
	s := ss.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss.superseded || ss.state == RMStopped {
		return status.Errorf(codes.FailedPrecondition, "rm %s is %s: response dropped", ss.entry.id, ss.state)
	}
	sl := &ss.slots[k]
	if len(sl.pending) >= s.opts.BufferLimit {
		err := status.Errorf(codes.FailedPrecondition,
			"rm %s: more than %d %s responses waited for the stream and were lost: register again",
			ss.entry.id, s.opts.BufferLimit, k)
		s.log.Warn("resource manager stopped: response buffer full", "rmID", ss.entry.id, "stream", k.String())
		ss.stopLocked(err)
		return err
	}
	sl.pending = append(sl.pending, msg)
	if sl.att != nil {
		sl.att.poke()
	}
	return nil
}

func (a *attachment) poke() {
	select {
	case a.notify <- struct{}{}:
	default:
	}
}

// endLocked ends an attachment with err (once) and frees its slot.
func (a *attachment) endLocked(err error) {
	if a.endErr != nil {
		return
	}
	a.endErr = err
	close(a.end)
	if sl := &a.sess.slots[a.kind]; sl.att == a {
		sl.att = nil
	}
}

// closeLocked ends every stream of the session.
func (ss *session) closeLocked(err error) {
	for k := range ss.slots {
		if a := ss.slots[k].att; a != nil {
			a.endLocked(err)
		}
	}
	if r := ss.relay.Swap(nil); r != nil {
		r.endWith(err)
	}
	ss.cancelTimerLocked()
}

func (ss *session) supersedeLocked(err error) {
	ss.superseded = true
	ss.closeLocked(err)
	for k := range ss.slots {
		ss.slots[k].pending = nil
	}
}

// stopLocked moves the session to Stopped: streams end with err, buffered
// responses are dropped, and only a new registration revives the RM.
func (ss *session) stopLocked(err error) {
	ss.closeLocked(err)
	ss.state = RMStopped
	ss.since = ss.srv.opts.Clock.Now()
	ss.reason = status.Convert(err).Message()
	for k := range ss.slots {
		ss.slots[k].pending = nil
	}
}

func (ss *session) cancelTimerLocked() {
	if ss.cancel != nil {
		ss.cancel()
		ss.cancel = nil
	}
	ss.pauseGen++
}

// pauseLocked marks the RM Paused and starts the reconnect timeout.
func (ss *session) pauseLocked() {
	s := ss.srv
	ss.state = RMPaused
	ss.since = s.opts.Clock.Now()
	ss.cancelTimerLocked()
	gen := ss.pauseGen
	ss.cancel = s.opts.AfterFunc(s.opts.ReconnectTimeout, func() { ss.expire(gen) })
	s.log.Warn("resource manager paused: stream lost", "rmID", ss.entry.id, "timeout", s.opts.ReconnectTimeout)
}

// failStream stops the RM after requests of its stream k could not be
// handed to the scheduler outside that stream (parked items): the
// scheduler's view of the RM can no longer be trusted, so it must
// register again, as when responses are lost.
func (s *Server) failStream(ss *session, k kind, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss.superseded || ss.state == RMStopped || s.closing {
		return
	}
	s.log.Warn("resource manager stopped: requests lost", "rmID", ss.entry.id, "stream", k.String(), "err", err)
	ss.stopLocked(err)
}

// expire stops the RM if it is still in the pause that started the timer.
func (ss *session) expire(gen int) {
	s := ss.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss.pauseGen != gen || ss.state != RMPaused || ss.superseded || s.closing {
		return
	}
	ss.cancel = nil
	s.log.Warn("resource manager stopped: no reconnection", "rmID", ss.entry.id, "timeout", s.opts.ReconnectTimeout)
	ss.stopLocked(status.Errorf(codes.FailedPrecondition,
		"rm %s stopped: streams not reopened within %s: register again", ss.entry.id, s.opts.ReconnectTimeout))
}

// attach opens a stream of kind k for the RM rmID; epoch is the
// registration the client opened it for (0: not said).
func (s *Server) attach(rmID string, k kind, epoch uint64) (*attachment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, errClosing
	}
	e := s.rms[rmID]
	if e == nil || e.sess == nil {
		return nil, status.Errorf(codes.FailedPrecondition, "%s: rm %q is not registered: call RegisterResourceManager first", k, rmID)
	}
	ss := e.sess
	if ss.state == RMStopped {
		return nil, status.Errorf(codes.FailedPrecondition, "%s: rm %q is stopped (%s): register again", k, rmID, ss.reason)
	}
	if err := ss.ownsEpoch(k.String(), epoch); err != nil {
		return nil, err
	}
	a := &attachment{sess: ss, kind: k, notify: make(chan struct{}, 1), end: make(chan struct{})}
	sl := &ss.slots[k]
	if sl.att != nil {
		sl.att.endLocked(status.Errorf(codes.Aborted, "%s of rm %s replaced by a newer stream", k, rmID))
	}
	sl.att = a
	sl.lost, sl.clean = false, false
	if ss.state == RMPaused && !slices.ContainsFunc(ss.slots[:], func(x slot) bool { return x.lost }) {
		ss.state = RMRunning
		ss.since = s.opts.Clock.Now()
		ss.cancelTimerLocked()
		s.log.Info("resource manager running again", "rmID", rmID)
	}
	if len(sl.pending) > 0 {
		a.poke()
	}
	return a, nil
}

// detach is called when a stream handler returns; clean means the RM
// half-closed the stream. A lost stream pauses a Running RM; an RM that
// cleanly closed every stream it had open has shut down and is Stopped.
func (s *Server) detach(a *attachment, clean bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a.endErr != nil {
		return // ended by the server: replaced, re-registered, stopped or closing
	}
	a.endLocked(status.Error(codes.Canceled, "stream closed"))
	ss := a.sess
	sl := &ss.slots[a.kind]
	sl.lost, sl.clean = !clean, clean
	if ss.superseded || ss.state == RMStopped || s.closing {
		return
	}
	shutdown := true
	for _, x := range ss.slots {
		if x.att != nil || x.lost {
			shutdown = false
		}
	}
	switch {
	case shutdown:
		s.log.Info("resource manager shut down: streams closed", "rmID", ss.entry.id)
		ss.stopLocked(status.Errorf(codes.FailedPrecondition, "rm %s closed its streams: register again", ss.entry.id))
	case !clean && ss.state == RMRunning:
		ss.pauseLocked()
	}
}

// Connected reports whether the RM has a stream of this registration open
// (the scheduler forgets a registration idle without one, rmproxy.Remote).
func (ss *session) Connected() bool {
	s := ss.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss.superseded || ss.state == RMStopped {
		return false
	}
	for _, sl := range ss.slots {
		if sl.att != nil {
			return true
		}
	}
	return ss.relay.Load() != nil
}

// Expired ends the registration the scheduler has forgotten: its streams
// end, and the server forgets the RM unless it is registering again.
func (ss *session) Expired() {
	s := ss.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss.superseded {
		return
	}
	s.log.Info("resource manager registration expired: no stream, nodes or applications", "rmID", ss.entry.id)
	ss.stopLocked(status.Errorf(codes.FailedPrecondition,
		"rm %s: registration expired (no stream open, no nodes, no applications): register again", ss.entry.id))
	if e := ss.entry; e.sess == ss && e.registering == 0 && s.rms[e.id] == e {
		delete(s.rms, e.id)
	}
}

// take returns the responses waiting for a, or ok=false when a no longer
// holds its slot.
func (s *Server) take(a *attachment) (msgs []proto.Message, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sl := &a.sess.slots[a.kind]
	if sl.att != a {
		return nil, false
	}
	msgs, sl.pending = sl.pending, nil
	return msgs, true
}

// requeue puts back responses a failed to send, ahead of newer ones.
func (s *Server) requeue(a *attachment, msgs []proto.Message) {
	if len(msgs) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := a.sess
	if ss.superseded || ss.state == RMStopped {
		return
	}
	sl := &ss.slots[a.kind]
	sl.pending = append(msgs, sl.pending...)
}

// live reports whether messages on a may still reach the scheduler.
func (s *Server) live(a *attachment) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case a.endErr != nil:
		return a.endErr
	case a.sess.entry.sess != a.sess:
		return status.Errorf(codes.Aborted, "rm %s registered again: reopen the stream", a.sess.entry.id)
	}
	return nil
}

// RMs returns the status of every RM that has registered, sorted by ID.
func (s *Server) RMs() []RMStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RMStatus, 0, len(s.rms))
	for id, e := range s.rms {
		ss := e.sess
		if ss == nil {
			continue
		}
		st := RMStatus{RmID: id, State: ss.state, Since: ss.since, Registered: ss.registered, DroppedEvents: ss.dropped, Reason: ss.reason,
			Parked: int(ss.ord.count.Load()), Callbacks: cbwire.Set(ss.want.Load()).List(), CallbacksOpen: ss.relay.Load() != nil,
			Unanswered: ss.unanswered.Load()}
		for k := range ss.slots {
			if ss.slots[k].att != nil {
				st.OpenStreams = append(st.OpenStreams, kind(k).String())
			}
			st.Buffered += len(ss.slots[k].pending)
		}
		slices.Sort(st.OpenStreams)
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b RMStatus) int {
		switch {
		case a.RmID < b.RmID:
			return -1
		case a.RmID > b.RmID:
			return 1
		}
		return 0
	})
	return out
}
