package grpcserver

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/cbwire"
)

// CallbacksServiceDesc describes paddock.v1.Callbacks, written by hand
// like AdminServiceDesc: one bidirectional stream, Callbacks, from
// paddock.v1.CallbackReply (RM) to paddock.v1.CallbackRequest (server);
// callbacks.proto declares it. It is registered by GRPCServer and Listen.
var CallbacksServiceDesc = grpc.ServiceDesc{
	ServiceName: cbwire.ServiceName,
	HandlerType: (*callbacksServer)(nil),
	Streams: []grpc.StreamDesc{{
		StreamName:    cbwire.MethodName,
		Handler:       func(srv any, st grpc.ServerStream) error { return srv.(callbacksServer).callbacks(st) },
		ServerStreams: true,
		ClientStreams: true,
	}},
	Metadata: "callbacks.proto",
}

// callbacksServer is what CallbacksServiceDesc dispatches to.
type callbacksServer interface {
	callbacks(grpc.ServerStream) error
}

// relay is a session's open Callbacks stream: calls waiting to be sent
// (those that expect a reply go first), the calls sent and not yet
// answered, and the end of the stream.
type relay struct {
	sess    *session
	mu      sync.Mutex
	calls   []*cbwire.Request // expect a reply
	oneway  []*cbwire.Request // events, scheduling states
	waiting map[uint64]chan *cbwire.Reply
	nextID  uint64
	notify  chan struct{} // something to send (capacity 1)
	end     chan struct{} // closed when the server ends the stream
	endErr  error         // guarded by mu
}

var (
	errNoRelay = errors.New("the RM's Callbacks stream is not open")
	errStalled = errors.New("the RM did not answer an earlier call in time")
	errBusy    = errors.New("too many calls in flight")
)

func (r *relay) poke() {
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

// endWith ends the stream (once): unanswered calls get no answer.
func (r *relay) endWith(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.endErr != nil {
		return
	}
	r.endErr = err
	close(r.end)
	for id, ch := range r.waiting {
		close(ch)
		delete(r.waiting, id)
	}
	r.calls, r.oneway = nil, nil
}

// call queues a request that expects a reply and returns the channel the
// reply arrives on (closed without one when the stream ends).
func (r *relay) call(req *cbwire.Request, limit int) (uint64, chan *cbwire.Reply, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.endErr != nil {
		return 0, nil, errNoRelay
	}
	if len(r.waiting) >= limit {
		return 0, nil, errBusy
	}
	r.nextID++
	req.ID = r.nextID
	ch := make(chan *cbwire.Reply, 1)
	r.waiting[req.ID] = ch
	r.calls = append(r.calls, req)
	r.poke()
	return req.ID, ch, nil
}

// forget drops a call that timed out; a late reply is then ignored.
func (r *relay) forget(id uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.waiting, id)
	for i, c := range r.calls {
		if c.ID == id {
			r.calls = append(r.calls[:i], r.calls[i+1:]...)
			break
		}
	}
}

// send queues a one-way request; false when the queue is full.
func (r *relay) send(req *cbwire.Request, limit int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.endErr != nil || len(r.oneway) >= limit {
		return false
	}
	r.oneway = append(r.oneway, req)
	r.poke()
	return true
}

// take returns what is to be sent, calls first.
func (r *relay) take() []*cbwire.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append(r.calls, r.oneway...)
	r.calls, r.oneway = nil, nil
	return out
}

// answer hands a reply to its caller; a reply to a call that timed out
// is dropped (it does not end the backoff: an RM that is merely slow
// would otherwise cost a timeout on every call).
func (r *relay) answer(rep *cbwire.Reply) {
	r.mu.Lock()
	ch := r.waiting[rep.ID]
	delete(r.waiting, rep.ID)
	r.mu.Unlock()
	if ch != nil {
		ch <- rep
	}
}

// ask makes one call that expects a reply, on the scheduler's goroutine.
// It waits at most Options.CallbackTimeout; after a timeout the RM's calls
// are answered at once as unanswered until Options.CallbackBackoff has
// passed (or the RM opens a new Callbacks stream), so that a slow or dead
// RM costs the scheduler one timeout per backoff at most.
func (ss *session) ask(req *cbwire.Request) (*cbwire.Reply, error) {
	o := ss.srv.opts
	r := ss.relay.Load()
	if r == nil {
		ss.unanswered.Add(1)
		return nil, errNoRelay
	}
	now := o.Clock.Now()
	if until := ss.stallUntil.Load(); until != 0 && now.UnixNano() < until {
		ss.unanswered.Add(1)
		return nil, errStalled
	}
	id, ch, err := r.call(req, o.CallbackInFlight)
	if err != nil {
		ss.unanswered.Add(1)
		return nil, err
	}
	t := time.NewTimer(o.CallbackTimeout)
	defer t.Stop()
	select {
	case rep, ok := <-ch:
		if !ok {
			ss.unanswered.Add(1)
			return nil, errNoRelay
		}
		return rep, nil
	case <-t.C:
		r.forget(id)
		ss.stallUntil.Store(now.Add(o.CallbackBackoff).UnixNano())
		ss.unanswered.Add(1)
		return nil, fmt.Errorf("no answer within %s", o.CallbackTimeout)
	}
}

// relayOneway sends a one-way callback when the RM asked for it (bit)
// and its stream is open; it is counted as dropped otherwise, or when the
// stream's queue is full. req builds the call only when it is sent, so an
// RM that did not ask costs what it always has.
func (ss *session) relayOneway(bit cbwire.Set, req func() *cbwire.Request, n int64) {
	if !cbwire.Set(ss.want.Load()).Has(bit) {
		ss.drop(n)
		return
	}
	r := ss.relay.Load()
	if r == nil || !r.send(req(), ss.srv.opts.BufferLimit) {
		ss.drop(n)
	}
}

// callbacks serves one Callbacks stream: the RM's first message names it
// and the callbacks it answers; the server acknowledges with an empty
// request, then sends calls and receives their replies.
func (s *Server) callbacks(st grpc.ServerStream) error {
	first := cbwire.NewReplyMessage()
	if err := st.RecvMsg(first); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	hello, err := cbwire.ParseReply(first)
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "Callbacks: %v", err)
	}
	want, err := cbwire.ParseSet(hello.Handles)
	switch {
	case hello.RmID == "":
		return status.Error(codes.InvalidArgument, "Callbacks: the first message must name the rmID")
	case err != nil:
		return status.Errorf(codes.InvalidArgument, "Callbacks of rm %s: %v", hello.RmID, err)
	case want == 0:
		return status.Errorf(codes.InvalidArgument, "Callbacks of rm %s: the first message must list the callbacks to relay (%v)", hello.RmID, cbwire.Names)
	}
	epoch, err := epochOf(st.Context())
	if err != nil {
		return err
	}
	r, err := s.attachRelay(hello.RmID, want, epoch)
	if err != nil {
		return err
	}
	defer s.detachRelay(r)
	if err := st.SendMsg((&cbwire.Request{}).Message()); err != nil {
		return err
	}
	s.log.Info("resource manager callbacks relayed", "rmID", hello.RmID, "callbacks", want.List())

	recvDone := make(chan error, 1)
	go func() {
		for {
			m := cbwire.NewReplyMessage()
			if err := st.RecvMsg(m); err != nil {
				recvDone <- err
				return
			}
			rep, err := cbwire.ParseReply(m)
			if err != nil {
				recvDone <- status.Errorf(codes.InvalidArgument, "Callbacks of rm %s: %v", hello.RmID, err)
				return
			}
			r.answer(rep)
		}
	}()
	for {
		select {
		case err := <-recvDone:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case <-r.end:
			r.mu.Lock()
			err := r.endErr
			r.mu.Unlock()
			return err
		case <-st.Context().Done():
			return status.FromContextError(st.Context().Err()).Err()
		case <-r.notify:
			for _, req := range r.take() {
				if err := st.SendMsg(req.Message()); err != nil {
					return err
				}
			}
		}
	}
}

// attachRelay makes a new Callbacks stream the current one of rmID's
// session (ending an older one) and records what the RM asked for.
func (s *Server) attachRelay(rmID string, want cbwire.Set, epoch uint64) (*relay, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, errClosing
	}
	e := s.rms[rmID]
	if e == nil || e.sess == nil {
		return nil, status.Errorf(codes.FailedPrecondition, "Callbacks: rm %q is not registered: call RegisterResourceManager first", rmID)
	}
	ss := e.sess
	if ss.state == RMStopped {
		return nil, status.Errorf(codes.FailedPrecondition, "Callbacks: rm %q is stopped (%s): register again", rmID, ss.reason)
	}
	if err := ss.ownsEpoch("Callbacks", epoch); err != nil {
		return nil, err
	}
	r := &relay{sess: ss, waiting: map[uint64]chan *cbwire.Reply{}, notify: make(chan struct{}, 1), end: make(chan struct{})}
	if old := ss.relay.Swap(r); old != nil {
		old.endWith(status.Errorf(codes.Aborted, "Callbacks of rm %s replaced by a newer stream", rmID))
	}
	ss.want.Store(uint32(want))
	ss.stallUntil.Store(0)
	return r, nil
}

// detachRelay ends r when its handler returns. The session keeps what the
// RM asked for: until a new stream opens, calls that expect a reply are
// unanswered (a node refused) rather than allowed.
func (s *Server) detachRelay(r *relay) {
	r.sess.relay.CompareAndSwap(r, nil)
	r.endWith(status.Error(codes.Canceled, "stream closed"))
}

// AnswersPredicates reports whether the RM asked for Predicates on its
// Callbacks stream (rmproxy.Asker).
func (ss *session) AnswersPredicates() bool {
	return cbwire.Set(ss.want.Load()).Has(cbwire.BitPredicates)
}

// AnswersPreemptionPredicates reports whether the RM asked for
// PreemptionPredicates (rmproxy.Asker).
func (ss *session) AnswersPreemptionPredicates() bool {
	return cbwire.Set(ss.want.Load()).Has(cbwire.BitPreemptionPredicates)
}

// Predicates asks the RM over its Callbacks stream when it asked for
// Predicates; otherwise every node is allowed (the SI streams cannot ask).
// An unanswered call refuses the node.
func (ss *session) Predicates(a *si.PredicatesArgs) error {
	if !ss.AnswersPredicates() {
		return nil
	}
	rep, err := ss.ask(&cbwire.Request{Predicates: a})
	if err != nil {
		return fmt.Errorf("predicates of rm %s not answered, node %s refused: %w", ss.entry.id, a.GetNodeID(), err)
	}
	if rep.PredicatesError != "" {
		return errors.New(rep.PredicatesError)
	}
	return nil
}

// PreemptionPredicates asks the RM when it asked for it; otherwise every
// plan is accepted. An unanswered call refuses the plan.
func (ss *session) PreemptionPredicates(a *si.PreemptionPredicatesArgs) *si.PreemptionPredicatesResponse {
	if !ss.AnswersPreemptionPredicates() {
		return &si.PreemptionPredicatesResponse{Success: true}
	}
	rep, err := ss.ask(&cbwire.Request{PreemptionPredicates: a})
	if err != nil || rep.PreemptionPredicates == nil {
		return &si.PreemptionPredicatesResponse{Success: false}
	}
	return rep.PreemptionPredicates
}

// SendEvent relays the events when the RM asked for them; otherwise they
// are counted and dropped.
func (ss *session) SendEvent(events []*si.EventRecord) {
	if len(events) == 0 {
		return
	}
	ss.relayOneway(cbwire.BitSendEvent, func() *cbwire.Request { return &cbwire.Request{Events: slices.Clone(events)} }, int64(len(events)))
}

// UpdateContainerSchedulingState relays the update when the RM asked for
// it; otherwise it is counted and dropped.
func (ss *session) UpdateContainerSchedulingState(u *si.UpdateContainerSchedulingStateRequest) {
	ss.relayOneway(cbwire.BitUpdateContainerSchedulingState, func() *cbwire.Request { return &cbwire.Request{ContainerState: u} }, 1)
}
