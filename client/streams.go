package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/cbwire"
)

type kind int

const (
	kindAllocation kind = iota
	kindApplication
	kindNode
	numKinds
)

var kindNames = [numKinds]string{"UpdateAllocation", "UpdateApplication", "UpdateNode"}

func (k kind) String() string { return kindNames[k] }

// registration is one registered RM with its three open streams.
type registration struct {
	rmID    string
	ctx     context.Context // of the streams
	cancel  context.CancelFunc
	streams [numKinds]grpc.ClientStream
	sendMu  [numKinds]sync.Mutex // SendMsg is not safe for concurrent use
	wg      sync.WaitGroup       // receive goroutines
	closing atomic.Bool          // ending on purpose: stream ends are expected

	cbStream grpc.ClientStream // the Callbacks stream, when the RM asked for callbacks
	cbMu     sync.Mutex        // guards SendMsg on cbStream

	done chan struct{}
	once sync.Once
	mu   sync.Mutex
	err  error
}

// open opens the three streams of rmID, greets the server on each (a
// message with only the rmID attaches the stream) and starts receiving;
// with callbacks it also opens the Callbacks stream, within regCtx.
func open(regCtx context.Context, conn grpc.ClientConnInterface, sched si.SchedulerClient, rmID, epoch string, cb api.ResourceManagerCallback, callbacks Callback) (*registration, error) {
	ctx, cancel := context.WithCancel(context.Background())
	if epoch != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, cbwire.RegistrationHeader, epoch)
	}
	r := &registration{rmID: rmID, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	alloc, err := sched.UpdateAllocation(ctx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("open UpdateAllocation stream: %w", err)
	}
	app, err := sched.UpdateApplication(ctx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("open UpdateApplication stream: %w", err)
	}
	node, err := sched.UpdateNode(ctx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("open UpdateNode stream: %w", err)
	}
	r.streams = [numKinds]grpc.ClientStream{alloc, app, node}
	greetings := [numKinds]any{&si.AllocationRequest{RmID: rmID}, &si.ApplicationRequest{RmID: rmID}, &si.NodeRequest{RmID: rmID}}
	for k, g := range greetings {
		if err := r.streams[k].SendMsg(g); err != nil {
			cancel()
			return nil, fmt.Errorf("greet on %s stream: %w", kind(k), err)
		}
	}
	if callbacks != 0 {
		if err := openCallbacks(regCtx, conn, r, callbacks, cb); err != nil {
			r.closing.Store(true)
			cancel()
			r.wg.Wait()
			return nil, err
		}
	}
	r.wg.Add(int(numKinds))
	go receive(r, kindAllocation, alloc, cb.UpdateAllocation)
	go receive(r, kindApplication, app, cb.UpdateApplication)
	go receive(r, kindNode, node, cb.UpdateNode)
	return r, nil
}

// receive delivers one stream's responses to the callback until it ends.
func receive[Req, Resp any](r *registration, k kind, st grpc.BidiStreamingClient[Req, Resp], deliver func(*Resp) error) {
	defer r.wg.Done()
	for {
		resp, err := st.Recv()
		if err != nil {
			if r.closing.Load() {
				return
			}
			if errors.Is(err, io.EOF) {
				err = errors.New("server ended the stream")
			}
			r.fail(fmt.Errorf("%s stream of rm %s: %w", k, r.rmID, err))
			return
		}
		_ = deliver(resp) // the callback's error is the RM's business, as in process
	}
}

// fail records the first failure, closes done and ends all streams: the
// RM must register again.
func (r *registration) fail(err error) {
	r.once.Do(func() {
		r.mu.Lock()
		r.err = err
		r.mu.Unlock()
		close(r.done)
		r.cancel()
	})
}

func (r *registration) failure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// send sends msg on stream k after checking it names this RM.
func (r *registration) send(k kind, rmID string, msg any) error {
	if rmID != r.rmID {
		return fmt.Errorf("%s: request for rm %q on the client registered as %q", k, rmID, r.rmID)
	}
	select {
	case <-r.done:
		return fmt.Errorf("%s: %w", k, r.failure())
	default:
	}
	r.sendMu[k].Lock()
	err := r.streams[k].SendMsg(msg)
	r.sendMu[k].Unlock()
	if err == nil {
		return nil
	}
	if errors.Is(err, io.EOF) {
		// the stream has ended; the receive side learns why
		select {
		case <-r.done:
			return fmt.Errorf("%s: %w", k, r.failure())
		case <-time.After(time.Second):
		}
	}
	return fmt.Errorf("%s stream of rm %s: %w", k, r.rmID, err)
}

// abort ends the streams at once (a new registration replaces them).
func (r *registration) abort() {
	r.closing.Store(true)
	r.cancel()
	r.wg.Wait()
	r.fail(errors.New("replaced by a new registration"))
}

// shutdown half-closes the streams so that the server sees a clean end,
// waits up to grace for it to end them, then cancels.
func (r *registration) shutdown(grace time.Duration) {
	r.closing.Store(true)
	for k := range r.streams {
		r.sendMu[k].Lock()
		_ = r.streams[k].CloseSend()
		r.sendMu[k].Unlock()
	}
	if r.cbStream != nil {
		r.cbMu.Lock()
		_ = r.cbStream.CloseSend()
		r.cbMu.Unlock()
	}
	ended := make(chan struct{})
	go func() { r.wg.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(grace):
	}
	r.cancel()
	<-ended
	r.fail(ErrClosed)
}
