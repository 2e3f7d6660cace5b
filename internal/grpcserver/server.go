package grpcserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/bearer"
	"github.com/paddock-sched/paddock/internal/cbwire"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/protocodec"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// Defaults for the zero values of Options.
const (
	DefaultReconnectTimeout = 60 * time.Second
	DefaultBufferLimit      = 1024
	DefaultMaxRecvMsgSize   = 16 << 20
	DefaultMaxSendMsgSize   = 16 << 20
	DefaultKeepaliveMinTime = 10 * time.Second
	DefaultKeepaliveTime    = 30 * time.Second
	DefaultKeepaliveTimeout = 10 * time.Second
	DefaultStopTimeout      = 5 * time.Second
	DefaultParkTimeout      = 5 * time.Second
	DefaultParkLimit        = 10000
	DefaultCallbackTimeout  = 250 * time.Millisecond
	DefaultCallbackBackoff  = 5 * time.Second
	DefaultCallbackInFlight = 16
)

// Options configure a Server. Zero values mean the defaults above.
type Options struct {
	// ReconnectTimeout is how long a Paused RM may take to reopen its
	// streams before it is Stopped.
	ReconnectTimeout time.Duration
	// BufferLimit is how many responses per stream kind are kept for an RM
	// while that stream is not open (or not keeping up).
	BufferLimit int
	// MaxRecvMsgSize bounds every received message, in bytes.
	MaxRecvMsgSize int
	// MaxSendMsgSize is the largest response sent in one message, in
	// bytes; larger responses are split into several (keep it at or below
	// the RMs' receive limit).
	MaxSendMsgSize int
	// KeepaliveMinTime is the shortest interval between client pings the
	// server tolerates; faster pingers are disconnected.
	KeepaliveMinTime time.Duration
	// KeepaliveTime and KeepaliveTimeout: the server pings a connection
	// idle for KeepaliveTime and closes it when no answer comes within
	// KeepaliveTimeout, so that vanished RMs are noticed.
	KeepaliveTime    time.Duration
	KeepaliveTimeout time.Duration
	// TLSConfig, when set, serves TLS with it.
	TLSConfig *tls.Config
	// Token, when set, is the bearer token every call must carry in its
	// "authorization" metadata.
	Token string
	// StopTimeout bounds the graceful part of Stop.
	StopTimeout time.Duration
	// ParkTimeout is how long an ask or allocation of an application (or
	// on a node) the RM has not sent yet waits for it before it is handed
	// to the scheduler as it is (which rejects it); ParkLimit is how many
	// such items wait per RM, the oldest going first beyond it. See the
	// package documentation (Streams).
	ParkTimeout time.Duration
	ParkLimit   int
	// CallbackTimeout bounds one Predicates or PreemptionPredicates call
	// relayed to an RM on its Callbacks stream (the scheduler waits for it
	// on its goroutine); no answer refuses the node or plan. After a
	// timeout the RM's calls are refused at once, without asking, until
	// CallbackBackoff has passed. CallbackInFlight
	// bounds the calls waiting for replies per RM. See the package
	// documentation (Callbacks).
	CallbackTimeout  time.Duration
	CallbackBackoff  time.Duration
	CallbackInFlight int
	// Clock stamps state changes; the real clock by default.
	Clock clock.Clock
	// AfterFunc runs f after d and returns a function that cancels it;
	// time.AfterFunc by default. Tests inject their own to fire timeouts
	// on demand.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// Logger receives lifecycle messages; slog.Default() by default.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.ReconnectTimeout <= 0 {
		o.ReconnectTimeout = DefaultReconnectTimeout
	}
	if o.BufferLimit <= 0 {
		o.BufferLimit = DefaultBufferLimit
	}
	if o.MaxRecvMsgSize <= 0 {
		o.MaxRecvMsgSize = DefaultMaxRecvMsgSize
	}
	if o.MaxSendMsgSize <= 0 {
		o.MaxSendMsgSize = DefaultMaxSendMsgSize
	}
	if o.KeepaliveMinTime <= 0 {
		o.KeepaliveMinTime = DefaultKeepaliveMinTime
	}
	if o.KeepaliveTime <= 0 {
		o.KeepaliveTime = DefaultKeepaliveTime
	}
	if o.KeepaliveTimeout <= 0 {
		o.KeepaliveTimeout = DefaultKeepaliveTimeout
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = DefaultStopTimeout
	}
	if o.ParkTimeout <= 0 {
		o.ParkTimeout = DefaultParkTimeout
	}
	if o.ParkLimit <= 0 {
		o.ParkLimit = DefaultParkLimit
	}
	if o.CallbackTimeout <= 0 {
		o.CallbackTimeout = DefaultCallbackTimeout
	}
	if o.CallbackBackoff <= 0 {
		o.CallbackBackoff = DefaultCallbackBackoff
	}
	if o.CallbackInFlight <= 0 {
		o.CallbackInFlight = DefaultCallbackInFlight
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.AfterFunc == nil {
		o.AfterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Server serves the SI Scheduler service and the Admin service for remote
// RMs on top of an api.SchedulerAPI. It does not own the API: stopping the
// server leaves the scheduler running.
type Server struct {
	si.UnimplementedSchedulerServer

	api  api.SchedulerAPI
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	rms     map[string]*rmEntry
	closing bool
	// registrations numbers the registrations made (session.epoch);
	// guarded by mu
	registrations uint64
	servers       []*grpc.Server
	wg            sync.WaitGroup // Serve goroutines started by Listen
}

var _ si.SchedulerServer = (*Server)(nil)

// New returns a server forwarding to a.
func New(a api.SchedulerAPI, opts Options) *Server {
	opts = opts.withDefaults()
	return &Server{api: a, opts: opts, log: opts.Logger, rms: map[string]*rmEntry{}}
}

// RegisterResourceManager registers (or re-registers) an RM with the
// scheduler. Responses for it go to the streams it opens afterwards.
func (s *Server) RegisterResourceManager(ctx context.Context, req *si.RegisterResourceManagerRequest) (*si.RegisterResourceManagerResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "register: nil request")
	}
	if req.RmID == "" {
		return nil, status.Error(codes.InvalidArgument, "register: rmID is empty")
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return nil, errClosing
	}
	e := s.rms[req.RmID]
	if e == nil {
		e = &rmEntry{id: req.RmID}
		s.rms[req.RmID] = e
	}
	e.registering++
	s.mu.Unlock()

	sess := newSession(s, e, s.opts.Clock.Now())
	// no stream of this RM forwards while the scheduler wipes its state
	e.fwd.Lock()
	defer e.fwd.Unlock()
	resp, err := s.api.RegisterResourceManager(req, sess)
	s.mu.Lock()
	e.registering--
	if err != nil {
		// a refused registration of an ID never registered leaves nothing
		if e.sess == nil && e.registering == 0 && s.rms[req.RmID] == e {
			delete(s.rms, req.RmID)
		}
		s.mu.Unlock()
		return nil, apiStatus(fmt.Sprintf("register %s", req.RmID), err)
	}
	if old := e.sess; old != nil {
		old.supersedeLocked(status.Errorf(codes.Aborted, "rm %s registered again: reopen the stream", req.RmID))
	}
	e.sess = sess
	s.registrations++
	sess.epoch = s.registrations
	s.mu.Unlock()
	// the registration's number, for the client to send on its streams
	// (a unary call without a gRPC transport, in process, has none to set)
	_ = grpc.SetHeader(ctx, metadata.Pairs(cbwire.RegistrationHeader, strconv.FormatUint(sess.epoch, 10)))
	s.log.Info("resource manager registered", "rmID", req.RmID, "version", req.Version, "policyGroup", req.PolicyGroup)
	if resp == nil {
		resp = &si.RegisterResourceManagerResponse{}
	}
	return resp, nil
}

// UpdateAllocation serves an RM's allocation stream.
func (s *Server) UpdateAllocation(st si.Scheduler_UpdateAllocationServer) error {
	return serveStream(s, st, streamSpec[si.AllocationRequest]{
		kind: kindAllocation,
		rmID: func(r *si.AllocationRequest) string { return r.RmID },
		greeting: func(r *si.AllocationRequest) bool {
			return len(r.Allocations) == 0 && len(r.Releases.GetAllocationsToRelease()) == 0
		},
		forward: s.allocation,
	})
}

// UpdateApplication serves an RM's application stream.
func (s *Server) UpdateApplication(st si.Scheduler_UpdateApplicationServer) error {
	return serveStream(s, st, streamSpec[si.ApplicationRequest]{
		kind:     kindApplication,
		rmID:     func(r *si.ApplicationRequest) string { return r.RmID },
		greeting: func(r *si.ApplicationRequest) bool { return len(r.New) == 0 && len(r.Remove) == 0 },
		forward: func(ss *session, r *si.ApplicationRequest) error {
			if err := s.api.UpdateApplication(r); err != nil {
				return err
			}
			return s.applications(ss, r)
		},
	})
}

// UpdateNode serves an RM's node stream.
func (s *Server) UpdateNode(st si.Scheduler_UpdateNodeServer) error {
	return serveStream(s, st, streamSpec[si.NodeRequest]{
		kind:     kindNode,
		rmID:     func(r *si.NodeRequest) string { return r.RmID },
		greeting: func(r *si.NodeRequest) bool { return len(r.Nodes) == 0 },
		forward: func(ss *session, r *si.NodeRequest) error {
			if err := s.api.UpdateNode(r); err != nil {
				return err
			}
			return s.nodesForwarded(ss, r)
		},
	})
}

// updateConfiguration serves /paddock.v1.Admin/UpdateConfiguration.
func (s *Server) updateConfiguration(_ context.Context, req *si.UpdateConfigurationRequest) error {
	if req == nil {
		return status.Error(codes.InvalidArgument, "update configuration: nil request")
	}
	if req.RmID == "" {
		return status.Error(codes.InvalidArgument, "update configuration: rmID is empty")
	}
	if err := s.api.UpdateConfiguration(req); err != nil {
		return apiStatus(fmt.Sprintf("update configuration of %s", req.RmID), err)
	}
	return nil
}

var errClosing = status.Error(codes.Unavailable, "server is stopping")

// apiStatus turns a SchedulerAPI error into a gRPC status: a stopped
// scheduler is Unavailable, a service queue that stayed full or a full RM
// table is ResourceExhausted, an RM ID off the allow-list is
// PermissionDenied, anything else is a bad request.
func apiStatus(what string, err error) error {
	if errors.Is(err, rmproxy.ErrStopped) {
		return status.Errorf(codes.Unavailable, "%s: %v", what, err)
	}
	if errors.Is(err, rmproxy.ErrBusy) || errors.Is(err, rmproxy.ErrTooManyRMs) {
		return status.Errorf(codes.ResourceExhausted, "%s: %v", what, err)
	}
	if errors.Is(err, rmproxy.ErrRMNotAllowed) {
		return status.Errorf(codes.PermissionDenied, "%s: %v", what, err)
	}
	return status.Errorf(codes.InvalidArgument, "%s: %v", what, err)
}

// ServerOptions are the grpc.ServerOptions the server needs: message size
// limit, its codec (protocodec: responses marshaled at the size their
// split computed), keepalive, TLS and the token check.
func (s *Server) ServerOptions() []grpc.ServerOption {
	o := s.opts
	opts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(o.MaxRecvMsgSize),
		grpc.ForceServerCodecV2(protocodec.Codec{}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: o.KeepaliveMinTime, PermitWithoutStream: true}),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: o.KeepaliveTime, Timeout: o.KeepaliveTimeout}),
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := s.authorize(ctx); err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := s.authorize(ss.Context()); err != nil {
				return err
			}
			return h(srv, ss)
		}),
	}
	if o.TLSConfig != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(o.TLSConfig)))
	}
	return opts
}

func (s *Server) authorize(ctx context.Context) error {
	if s.opts.Token == "" {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		if bearer.Matches(v, s.opts.Token) {
			return nil
		}
	}
	return status.Error(codes.Unauthenticated, "missing or wrong bearer token in the authorization metadata")
}

// GRPCServer returns a new grpc.Server with ServerOptions (then extra) and
// the three services (Scheduler, Admin, Callbacks) registered. Stop stops it.
func (s *Server) GRPCServer(extra ...grpc.ServerOption) *grpc.Server {
	gs := grpc.NewServer(append(s.ServerOptions(), extra...)...)
	si.RegisterSchedulerServer(gs, s)
	gs.RegisterService(&AdminServiceDesc, s)
	gs.RegisterService(&CallbacksServiceDesc, s)
	s.mu.Lock()
	s.servers = append(s.servers, gs)
	s.mu.Unlock()
	return gs
}

// Listen serves on the TCP address addr ("127.0.0.1:0" picks a port) in
// the background and returns the address it listens on.
func (s *Server) Listen(addr string, extra ...grpc.ServerOption) (net.Addr, error) {
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		return nil, errors.New("grpc server: listen after Stop")
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("grpc server: listen on %s: %w", addr, err)
	}
	gs := s.GRPCServer(extra...)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := gs.Serve(lis); err != nil {
			s.log.Error("grpc server stopped", "addr", lis.Addr().String(), "err", err)
		}
	}()
	s.log.Info("grpc server listening", "addr", lis.Addr().String(), "tls", s.opts.TLSConfig != nil)
	return lis.Addr(), nil
}

// Stop ends every stream with Unavailable, cancels the reconnect timers
// and stops the grpc.Servers made by GRPCServer or Listen, gracefully
// within Options.StopTimeout. The SchedulerAPI is left running.
func (s *Server) Stop() {
	s.mu.Lock()
	s.closing = true
	for _, e := range s.rms {
		if e.sess != nil {
			e.sess.closeLocked(errClosing)
		}
	}
	servers := s.servers
	s.servers = nil
	s.mu.Unlock()
	for _, gs := range servers {
		done := make(chan struct{})
		go func() { gs.GracefulStop(); close(done) }()
		select {
		case <-done:
		case <-time.After(s.opts.StopTimeout):
			gs.Stop()
			<-done
		}
	}
	s.wg.Wait()
}
