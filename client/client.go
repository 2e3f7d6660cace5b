// Package client is the Go client of Paddock's gRPC Scheduler
// Interface, for resource managers (RMs) that run in another process: it
// registers an RM, keeps the three SI streams open and delivers the
// scheduler's responses to an api.ResourceManagerCallback, so that a
// remote RM is written exactly like an in-process one (*Client implements
// api.SchedulerAPI).
//
// Responses arrive on three receive goroutines, one per stream, so the
// callback must be safe for concurrent use. The streams are not ordered
// with respect to each other, but the server makes up for it: asks of an
// application sent before the application itself (or allocations on a
// node sent before the node) wait for it there, up to a few seconds (see
// package grpcserver), so an RM may send UpdateApplication and at once
// UpdateAllocation as it would in process.
//
// The SI streams cannot carry the RM's other callbacks: by default the
// server allows every node (Predicates), accepts every preemption plan
// (PreemptionPredicates) and drops events and scheduling states. An RM
// that sets Options.Callbacks gets those it lists relayed to its callback
// over Paddock's Callbacks stream (an optional extension, see package
// grpcserver); calls that expect an answer run on goroutines of their own
// and must answer within the server's timeout (250 ms by default), or the
// node or plan is refused.
//
// Messages travel in the protocol buffers wire format of the SI. The
// allocations of one AllocationResponse whose resources were encoded
// alike share one si.Resource message (so do an in-process RM's, which
// share their ask's), and those with the same preemption flags one
// si.PreemptionPolicy: the callback reads them and does not change them.
//
// When a stream breaks, Done is closed and Err says why; the scheduler
// keeps the RM Paused for a while. Register again (on the same Client: the
// connection redials) and resync the full state. Close shuts the RM down:
// the server marks it Stopped.
package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/cbwire"
	"github.com/paddock-sched/paddock/internal/protocodec"
)

// AdminUpdateConfigurationMethod is Paddock's Admin method for
// configuration updates (see package grpcserver).
const AdminUpdateConfigurationMethod = "/paddock.v1.Admin/UpdateConfiguration"

// Defaults for the zero values of Options.
const (
	DefaultMaxMsgSize    = 16 << 20
	DefaultCallTimeout   = 30 * time.Second
	DefaultKeepaliveTime = 30 * time.Second
	closeGrace           = 2 * time.Second
)

// Options configure a Client. Zero values mean the defaults.
type Options struct {
	// TLSConfig, when set, dials with TLS; otherwise the connection is
	// plaintext.
	TLSConfig *tls.Config
	// Token, when set, is sent as "authorization: Bearer <token>" on every
	// call (also over plaintext, for loopback use).
	Token string
	// MaxMsgSize bounds messages in both directions, in bytes.
	MaxMsgSize int
	// CallTimeout bounds the calls of the api.SchedulerAPI form, which take
	// no context (RegisterResourceManager, UpdateConfiguration).
	CallTimeout time.Duration
	// KeepaliveTime is how often an idle connection is pinged; it must not
	// be below the server's minimum (10 s by default).
	KeepaliveTime time.Duration
	// DialOptions are added after the client's own.
	DialOptions []grpc.DialOption
	// Callbacks are the callbacks of the RM's api.ResourceManagerCallback
	// the server should call over gRPC (Paddock's Callbacks extension),
	// for example Predicates|SendEvent. Zero (the default) is a plain SI
	// client: the server answers Predicates and PreemptionPredicates
	// itself (yes) and drops events. Register fails when the server does
	// not offer the extension.
	Callbacks Callback
}

// ErrClosed is returned by calls on a closed Client.
var ErrClosed = errors.New("grpc client is closed")

// Client is one connection to a Paddock server, for one RM at a time.
type Client struct {
	conn  *grpc.ClientConn
	sched si.SchedulerClient
	opts  Options

	mu     sync.Mutex
	cur    *registration
	closed bool
}

var _ api.SchedulerAPI = (*Client)(nil)

// Dial connects to the server at addr and waits until the connection is
// ready or ctx ends.
func Dial(ctx context.Context, addr string, opts Options) (*Client, error) {
	if opts.MaxMsgSize <= 0 {
		opts.MaxMsgSize = DefaultMaxMsgSize
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.KeepaliveTime <= 0 {
		opts.KeepaliveTime = DefaultKeepaliveTime
	}
	creds := insecure.NewCredentials()
	if opts.TLSConfig != nil {
		creds = credentials.NewTLS(opts.TLSConfig)
	}
	dopts := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		// the SI's protocol buffers, with the allocations of allocation
		// lists encoded and decoded by hand (protocodec)
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(opts.MaxMsgSize), grpc.MaxCallSendMsgSize(opts.MaxMsgSize),
			grpc.ForceCodecV2(protocodec.Codec{})),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: opts.KeepaliveTime, Timeout: 10 * time.Second, PermitWithoutStream: true}),
	}
	if opts.Token != "" {
		dopts = append(dopts, grpc.WithPerRPCCredentials(bearer(opts.Token)))
	}
	dopts = append(dopts, opts.DialOptions...)
	conn, err := grpc.NewClient(addr, dopts...)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	conn.Connect()
	for st := conn.GetState(); st != connectivity.Ready; st = conn.GetState() {
		if !conn.WaitForStateChange(ctx, st) {
			conn.Close()
			return nil, fmt.Errorf("dial %s: not ready (%s): %w", addr, st, ctx.Err())
		}
	}
	return &Client{conn: conn, sched: si.NewSchedulerClient(conn), opts: opts}, nil
}

// bearer sends a token in the authorization metadata.
type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

func (bearer) RequireTransportSecurity() bool { return false }

// Register registers the RM described by req and opens its three streams;
// responses go to cb. Registering again (for example after Done) ends the
// previous streams first and waits for their callbacks to return, so it
// must not be called from inside a callback; the scheduler then expects a
// full resync.
func (c *Client) Register(ctx context.Context, req *si.RegisterResourceManagerRequest, cb api.ResourceManagerCallback) error {
	switch {
	case req == nil:
		return errors.New("register: nil request")
	case req.RmID == "":
		return errors.New("register: rmID is empty")
	case cb == nil:
		return fmt.Errorf("register %s: nil callback", req.RmID)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	old := c.cur
	c.cur = nil
	c.mu.Unlock()
	if old != nil {
		old.abort()
	}
	// the server numbers the registration; the streams carry the number,
	// so that one of them reaching the server after a later registration
	// is refused instead of taking that registration's place
	var header metadata.MD
	if _, err := c.sched.RegisterResourceManager(ctx, req, grpc.WaitForReady(true), grpc.Header(&header)); err != nil {
		return fmt.Errorf("register %s: %w", req.RmID, err)
	}
	var epoch string
	if v := header.Get(cbwire.RegistrationHeader); len(v) == 1 {
		epoch = v[0]
	}
	r, err := open(ctx, c.conn, c.sched, req.RmID, epoch, cb, c.opts.Callbacks)
	if err != nil {
		return fmt.Errorf("register %s: %w", req.RmID, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		r.abort()
		return ErrClosed
	}
	c.cur = r
	return nil
}

// RegisterResourceManager is Register in the api.SchedulerAPI form,
// bounded by Options.CallTimeout.
func (c *Client) RegisterResourceManager(req *si.RegisterResourceManagerRequest, cb api.ResourceManagerCallback) (*si.RegisterResourceManagerResponse, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.CallTimeout)
	defer cancel()
	if err := c.Register(ctx, req, cb); err != nil {
		return nil, err
	}
	return &si.RegisterResourceManagerResponse{}, nil
}

func (c *Client) current() (*registration, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		return nil, ErrClosed
	case c.cur == nil:
		return nil, errors.New("no resource manager registered: call Register first")
	}
	return c.cur, nil
}

// UpdateAllocation sends asks, allocations and releases. A request of
// more than Chunk asks and allocations goes as several messages in a row,
// Chunk of them each and the releases with the last (the order the
// scheduler applies one request in), so that the scheduler starts on the
// first while the rest are encoded and decoded: with requests of 1,000
// asks the first allocation came back after 12-17 ms, mostly spent
// encoding and decoding the whole request. Each message is applied as a
// request of its own; when a send fails, the messages before it were
// sent.
func (c *Client) UpdateAllocation(req *si.AllocationRequest) error {
	r, err := c.current()
	if err != nil {
		return err
	}
	if req == nil {
		return errors.New("update allocation: nil request")
	}
	if len(req.Allocations) <= Chunk {
		return r.send(kindAllocation, req.RmID, req)
	}
	for i := 0; i < len(req.Allocations); i += Chunk {
		part := &si.AllocationRequest{RmID: req.RmID, Allocations: req.Allocations[i:min(i+Chunk, len(req.Allocations))]}
		if i+Chunk >= len(req.Allocations) {
			part.Releases = req.Releases
		}
		if err := r.send(kindAllocation, req.RmID, part); err != nil {
			return err
		}
	}
	return nil
}

// Chunk is the most asks and allocations UpdateAllocation sends in one
// message.
const Chunk = 128

// UpdateApplication sends application additions and removals.
func (c *Client) UpdateApplication(req *si.ApplicationRequest) error {
	r, err := c.current()
	if err != nil {
		return err
	}
	if req == nil {
		return errors.New("update application: nil request")
	}
	return r.send(kindApplication, req.RmID, req)
}

// UpdateNode sends node changes.
func (c *Client) UpdateNode(req *si.NodeRequest) error {
	r, err := c.current()
	if err != nil {
		return err
	}
	if req == nil {
		return errors.New("update node: nil request")
	}
	return r.send(kindNode, req.RmID, req)
}

// UpdateConfiguration reloads an RM's configuration through Paddock's
// Admin service, bounded by Options.CallTimeout. It needs no open streams.
func (c *Client) UpdateConfiguration(req *si.UpdateConfigurationRequest) error {
	if req == nil {
		return errors.New("update configuration: nil request")
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return ErrClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.CallTimeout)
	defer cancel()
	if err := c.conn.Invoke(ctx, AdminUpdateConfigurationMethod, req, &emptypb.Empty{}); err != nil {
		return fmt.Errorf("update configuration of %s: %w", req.RmID, err)
	}
	return nil
}

// Done is closed when a stream of the current registration breaks or the
// client closes; nil before the first Register.
func (c *Client) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil {
		return nil
	}
	return c.cur.done
}

// Err says why Done was closed; nil while the streams are healthy.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil {
		return nil
	}
	return c.cur.failure()
}

// Close shuts the RM down: it half-closes the streams (the server then
// marks the RM Stopped), waits briefly for the server to end them, and
// closes the connection. Like Register, not to be called from a callback.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	r := c.cur
	c.mu.Unlock()
	if r != nil {
		r.shutdown(closeGrace)
	}
	return c.conn.Close()
}

// Stop is Close in the api.SchedulerAPI form.
func (c *Client) Stop() { _ = c.Close() }
