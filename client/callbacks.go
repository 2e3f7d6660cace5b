package client

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/cbwire"
)

// Callback names callbacks of api.ResourceManagerCallback that a Paddock
// server relays to a remote RM on its Callbacks stream
// (paddock.v1.Callbacks, Paddock's optional extension of the SI; see
// package grpcserver). Options.Callbacks lists those the RM wants; the
// others behave as for any SI client: Predicates allows every node,
// PreemptionPredicates accepts every plan, events and scheduling states
// are dropped.
type Callback uint32

// The relayable callbacks.
const (
	// Predicates: the scheduler asks cb.Predicates before placing an ask
	// on a node; an error refuses the node (its text is the reason).
	Predicates = Callback(cbwire.BitPredicates)
	// PreemptionPredicates: the scheduler asks cb.PreemptionPredicates
	// before preempting; nil or Success false refuses the plan.
	PreemptionPredicates = Callback(cbwire.BitPreemptionPredicates)
	// SendEvent: cb.SendEvent receives the scheduler's event records.
	SendEvent = Callback(cbwire.BitSendEvent)
	// UpdateContainerSchedulingState: cb.UpdateContainerSchedulingState
	// receives the scheduling states of asks.
	UpdateContainerSchedulingState = Callback(cbwire.BitUpdateContainerSchedulingState)
	// AllCallbacks is all four.
	AllCallbacks = Predicates | PreemptionPredicates | SendEvent | UpdateContainerSchedulingState
)

// openCallbacks opens the Callbacks stream of r on conn, names the RM and
// the callbacks it answers, and waits (within ctx) for the server to
// accept; then requests are served on their own goroutine.
func openCallbacks(ctx context.Context, conn grpc.ClientConnInterface, r *registration, want Callback, cb api.ResourceManagerCallback) error {
	st, err := conn.NewStream(r.ctx, &cbwire.StreamDesc, cbwire.FullMethod)
	if err != nil {
		return fmt.Errorf("open Callbacks stream: %w", err)
	}
	hello := &cbwire.Reply{RmID: r.rmID, Handles: cbwire.Set(want).List()}
	// io.EOF: the server ended the stream (one that does not relay
	// callbacks answers Unimplemented at once); its status comes with
	// the receive below, as grpc-go documents for SendMsg
	if err := st.SendMsg(hello.Message()); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("open Callbacks stream: %w", err)
	}
	ack := make(chan error, 1)
	go func() { ack <- st.RecvMsg(cbwire.NewRequestMessage()) }()
	select {
	case err := <-ack:
		if err != nil {
			return fmt.Errorf("the server does not relay callbacks %v: %w", hello.Handles, err)
		}
	case <-ctx.Done():
		r.cancel()
		return fmt.Errorf("open Callbacks stream: %w", ctx.Err())
	}
	r.cbStream = st
	r.wg.Add(1)
	go serveCallbacks(r, st, cb)
	return nil
}

// serveCallbacks answers the server's calls until the stream ends: the
// calls that expect a reply each on a goroutine of their own (the replies
// carry the call's ID), the one-way ones in order.
func serveCallbacks(r *registration, st grpc.ClientStream, cb api.ResourceManagerCallback) {
	defer r.wg.Done()
	for {
		m := cbwire.NewRequestMessage()
		err := st.RecvMsg(m)
		var req *cbwire.Request
		if err == nil {
			req, err = cbwire.ParseRequest(m)
		}
		if err != nil {
			if r.closing.Load() {
				return
			}
			if errors.Is(err, io.EOF) {
				err = errors.New("server ended the stream")
			}
			r.fail(fmt.Errorf("Callbacks stream of rm %s: %w", r.rmID, err))
			return
		}
		switch {
		case req.Predicates != nil:
			go func(id uint64, a *si.PredicatesArgs) {
				rep := &cbwire.Reply{ID: id}
				if err := cb.Predicates(a); err != nil {
					rep.PredicatesError = err.Error()
					if rep.PredicatesError == "" {
						rep.PredicatesError = "refused"
					}
				}
				r.reply(rep)
			}(req.ID, req.Predicates)
		case req.PreemptionPredicates != nil:
			go func(id uint64, a *si.PreemptionPredicatesArgs) {
				r.reply(&cbwire.Reply{ID: id, PreemptionPredicates: cb.PreemptionPredicates(a)})
			}(req.ID, req.PreemptionPredicates)
		case len(req.Events) > 0:
			cb.SendEvent(req.Events)
		case req.ContainerState != nil:
			cb.UpdateContainerSchedulingState(req.ContainerState)
		}
	}
}

// reply sends an answer on the Callbacks stream; a stream that has ended
// is noticed by serveCallbacks.
func (r *registration) reply(rep *cbwire.Reply) {
	r.cbMu.Lock()
	defer r.cbMu.Unlock()
	_ = r.cbStream.SendMsg(rep.Message())
}
