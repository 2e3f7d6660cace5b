// Package serve assembles a running Paddock scheduler: the scheduler
// service, the gRPC Scheduler Interface for remote resource managers, and
// the REST API (internal/rest, with metrics, events, health checks and
// history), with shared logging, optional TLS and an optional bearer
// token, and a graceful shutdown. `paddock serve`
// is a thin flag layer over it; tests start it on loopback ports.
package serve

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/proto"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/bearer"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/events"
	"github.com/paddock-sched/paddock/internal/grpcserver"
	"github.com/paddock-sched/paddock/internal/health"
	"github.com/paddock-sched/paddock/internal/history"
	"github.com/paddock-sched/paddock/internal/logging"
	"github.com/paddock-sched/paddock/internal/metrics"
	"github.com/paddock-sched/paddock/internal/resource"
	"github.com/paddock-sched/paddock/internal/rest"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// Default listen addresses. REST is YuniKorn's fixed port; gRPC is the
// next one up.
const (
	DefaultRESTAddr = ":9080"
	DefaultGRPCAddr = ":9081"
)

// MetricsCacheTTL is how long a gathering of the metrics serves scrapes:
// any number of readers cost at most one gathering (and snapshot) a
// second.
const MetricsCacheTTL = time.Second

// Options configure a Server.
type Options struct {
	// RESTAddr and GRPCAddr are TCP listen addresses ("127.0.0.1:0" picks
	// a free port); "" serves no REST API or no gRPC service.
	RESTAddr, GRPCAddr string
	// TLS, when set, serves both REST and gRPC over TLS.
	TLS *tls.Config
	// Token, when set, is the bearer token every gRPC call and the
	// sensitive REST endpoints (config, validate-conf, /debug) must carry
	// ("Authorization: Bearer <token>").
	Token string
	// UIDir, when set, is a web UI build (the YuniKorn web UI's files)
	// served at / on the REST address.
	UIDir string
	// TokenForReads extends the token to every REST request, reads
	// included (the YuniKorn web UI then needs a proxy that adds it).
	TokenForReads bool
	// Config is a queues.yaml used for RMs that register without a
	// configuration of their own ("" means the built-in default).
	Config string
	// Logs are the loggers; their levels follow the RMs' extra
	// configuration (log.level, log.<name>.level). Text on stderr when nil.
	Logs *logging.Set
	// Events configures the event history (defaults when zero).
	Events events.Options
	// GRPC configures the gRPC server; TLS, Token and Logger are set from
	// the fields above.
	GRPC grpcserver.Options
	// Clock is the scheduler's clock; the real clock when nil.
	Clock clock.Clock
	// SnapshotMaxAge is how stale the state REST, metrics, health and
	// history read may be (DefaultSnapshotMaxAge when 0, negative: always
	// current). It bounds the scheduler time spent building snapshots
	// for readers.
	SnapshotMaxAge time.Duration
	// REST bounds the REST listener: read, write and idle timeouts and
	// the number of open connections (defaults when zero).
	REST RESTLimits
	// SIQueueLimit bounds the SI items (nodes, applications, asks,
	// allocations, releases) waiting for the scheduler goroutine
	// (rmproxy.DefaultMaxQueued when 0, unbounded when negative); an RM
	// call that finds the queue full waits up to SIQueueWait
	// (rmproxy.DefaultQueueWait when 0) and then fails with
	// rmproxy.ErrBusy (gRPC ResourceExhausted).
	SIQueueLimit int
	SIQueueWait  time.Duration
	// ResourceTypes is how many resource types (vcore and memory
	// included) each RM may use, 2 to resource.MaxTypes (16); 0 means 16.
	// Each RM has its own set: one RM's types never count against
	// another's.
	ResourceTypes int
	// MaxRMs bounds the resource managers registered at once
	// (rmproxy.DefaultMaxRMs, 100, when 0; unbounded when negative): a new
	// ID past it is refused (gRPC ResourceExhausted).
	MaxRMs int
	// RMExpiry is how long the registration of a remote RM may go with no
	// stream open while it holds no nodes and no applications before it
	// expires and frees its place under MaxRMs (rmproxy.DefaultRMExpiry,
	// 60 s, when 0; never when negative).
	RMExpiry time.Duration
	// AllowedRMs, when not empty, are the only RM IDs that may register;
	// others are refused (gRPC PermissionDenied).
	AllowedRMs []string
	// Service, when set, is the scheduler service to serve instead of a
	// new one: a manual service its owner cycles (the trace replay), read
	// through snapshots like any other. The server adds its metrics and
	// event hooks and the snapshot age; the SI queue, resource-type, RM
	// limits and DISABLE_RESERVATION stay as the owner set them. Set it
	// before the owner registers its RM; Shutdown (or a failed Start)
	// stops it.
	Service *rmproxy.Service
	// Standby starts the scheduler as a standby: it takes in what its RMs
	// send and decides nothing until Service().Activate (rmproxy
	// standby.go).
	Standby bool
	// AllocationRate is the service's default bound on allocations a
	// second per RM (rmproxy SetAllocationRate; 0: none). Not applied to
	// a Service the owner made.
	AllocationRate float64
}

// DefaultSnapshotMaxAge is the default Options.SnapshotMaxAge.
const DefaultSnapshotMaxAge = 250 * time.Millisecond

// Server is a running scheduler with its network endpoints.
type Server struct {
	svc     *rmproxy.Service
	api     api.SchedulerAPI // svc, with the default configuration
	uiDir   string
	grpc    *grpcserver.Server
	http    *http.Server
	events  *events.Service
	metrics *metrics.Metrics
	logs    *logging.Set
	log     *slog.Logger
	health  *health.Checker
	history *history.History
	cancel  context.CancelFunc // stops the health and history loops
	loops   sync.WaitGroup

	restAddr, grpcAddr net.Addr
	serveErr           chan error
	stopOnce           sync.Once
}

// ReadConfig reads and validates a queues.yaml file for Options.Config.
func ReadConfig(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if _, err := config.Parse(b); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return string(b), nil
}

// Start starts the scheduler and listens on both addresses.
func Start(o Options) (*Server, error) {
	if o.Logs == nil {
		o.Logs = logging.NewText(os.Stderr)
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	for _, id := range o.AllowedRMs {
		if err := engine.CheckRMID(id); err != nil {
			return nil, fmt.Errorf("serve: allowed RMs: %w", err)
		}
	}
	if o.Config != "" {
		if _, err := config.Parse([]byte(o.Config)); err != nil {
			return nil, fmt.Errorf("serve: initial configuration: %w", err)
		}
	}
	if o.UIDir != "" {
		if err := checkUI(o.UIDir); err != nil {
			return nil, err
		}
	}
	s := &Server{logs: o.Logs, log: o.Logs.Logger(logging.Entrypoint), serveErr: make(chan error, 1), uiDir: o.UIDir}
	if s.svc = o.Service; s.svc == nil {
		s.svc = rmproxy.New(o.Clock)
		if o.Standby {
			s.svc.Fence()
		}
		s.svc.SetAllocationRate(o.AllocationRate)
		if err := s.limit(o); err != nil {
			s.svc.Stop()
			return nil, err
		}
	}
	if o.SnapshotMaxAge == 0 {
		o.SnapshotMaxAge = DefaultSnapshotMaxAge
	}
	s.svc.SetSnapshotMaxAge(max(o.SnapshotMaxAge, 0))
	if o.Events.Logger == nil {
		o.Events.Logger = o.Logs.Logger(logging.Events)
	}
	s.events = events.New(o.Events)
	s.metrics = metrics.New(metrics.SnapshotSource{Service: s.svc}, o.Logs.Logger(logging.Metrics))
	s.registerEventMetrics()
	// before the hooks: an RM's extra configuration sets its interval
	s.health = health.New(s.svc, health.DefaultInterval)
	hooks := s.metrics.Hooks()
	hooks.Event = func(_ string, reg *resource.Registry, r *event.Record) { s.events.AppendFrom(reg, r) }
	hooks.Extra = s.applyExtra
	hooks.Logger = o.Logs.Logger(logging.RMProxy)
	hooks.Loggers = o.Logs.Logger
	s.svc.SetHooks(hooks)

	var sched api.SchedulerAPI = s.svc
	if o.Config != "" {
		sched = defaultConfig{SchedulerAPI: s.svc, config: o.Config}
	}
	s.api = sched
	if o.GRPCAddr != "" {
		g := o.GRPC
		g.TLSConfig, g.Token, g.Logger = o.TLS, o.Token, o.Logs.Logger(logging.RPC)
		s.grpc = grpcserver.New(sched, g)
		addr, err := s.grpc.Listen(o.GRPCAddr)
		if err != nil {
			s.svc.Stop()
			return nil, err
		}
		s.grpcAddr = addr
	}

	var lis net.Listener
	if o.RESTAddr != "" {
		var err error
		if lis, err = net.Listen("tcp", o.RESTAddr); err != nil {
			if s.grpc != nil {
				s.grpc.Stop()
			}
			s.svc.Stop()
			return nil, fmt.Errorf("serve: REST listen on %s: %w", o.RESTAddr, err)
		}
		s.restAddr = lis.Addr()
	}
	s.history = history.New(history.DefaultCapacity)
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.loops.Add(2)
	go func() { defer s.loops.Done(); s.health.Run(ctx) }()
	go func() { defer s.loops.Done(); s.history.Run(ctx, s.svc, o.Clock, history.DefaultInterval) }()
	if lis != nil {
		s.serveREST(lis, o)
	}
	s.log.Info("paddock serving", "rest", s.RESTAddr(), "grpc", s.GRPCAddr(), "tls", o.TLS != nil, "token", o.Token != "")
	return s, nil
}

// limit applies the options' limits and DISABLE_RESERVATION to a service
// the server made.
func (s *Server) limit(o Options) error {
	if err := reservationsFromEnv(s.svc); err != nil {
		return err
	}
	if o.SIQueueLimit == 0 {
		o.SIQueueLimit = rmproxy.DefaultMaxQueued
	}
	if o.SIQueueWait <= 0 {
		o.SIQueueWait = rmproxy.DefaultQueueWait
	}
	s.svc.SetQueueLimit(o.SIQueueLimit, o.SIQueueWait)
	s.svc.SetTypeLimit(o.ResourceTypes)
	s.svc.SetRMLimit(o.MaxRMs)
	s.svc.SetRMExpiry(o.RMExpiry)
	s.svc.SetAllowedRMs(o.AllowedRMs)
	return nil
}

// reservationsFromEnv applies the reference's DISABLE_RESERVATION
// environment variable: a true value turns reservations off; a value that
// is no boolean stops the start rather than being ignored.
func reservationsFromEnv(svc *rmproxy.Service) error {
	v, ok := os.LookupEnv("DISABLE_RESERVATION")
	if !ok || v == "" {
		return nil
	}
	off, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("serve: DISABLE_RESERVATION=%q is not a boolean (true or false)", v)
	}
	return svc.SetReservations(!off)
}

// serveREST serves the REST API on lis until Shutdown.
func (s *Server) serveREST(lis net.Listener, o Options) {
	s.http = &http.Server{Handler: s.handler(o.Token, o.TokenForReads), TLSConfig: o.TLS,
		ErrorLog: slog.NewLogLogger(o.Logs.Logger(logging.REST).Handler(), slog.LevelWarn)}
	lis = o.REST.apply(s.http, lis)
	go func() {
		var err error
		if o.TLS != nil {
			err = s.http.ServeTLS(lis, "", "")
		} else {
			err = s.http.Serve(lis)
		}
		if !errors.Is(err, http.ErrServerClosed) {
			s.serveErr <- err
		}
	}()
}

// registerEventMetrics exports the event history's own counters (the
// reference defines event metrics but never registers them) and the SI
// queue's.
func (s *Server) registerEventMetrics() {
	ring := s.events.Ring()
	s.metrics.Registry().MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "paddock_event_ring_records", Help: "Event records held in the ring."},
			func() float64 { return float64(ring.Len()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "paddock_event_ring_dropped_total", Help: "Event records overwritten before the ring's capacity allowed keeping them."},
			func() float64 { return float64(ring.Dropped()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "paddock_event_streams", Help: "Open event streams."},
			func() float64 { return float64(len(s.events.Streams())) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "paddock_event_stream_slow_disconnects_total", Help: "Event streams cut off for falling behind."},
			func() float64 { return float64(s.events.SlowDisconnects()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "paddock_event_stream_refused_total", Help: "Event stream requests refused by the stream limits."},
			func() float64 { return float64(s.events.Refused()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "paddock_si_queue_items", Help: "SI items (nodes, applications, asks, allocations, releases) waiting for the scheduler."},
			func() float64 { return float64(s.svc.QueueStats().Items) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "paddock_si_queue_limit", Help: "The bound of the SI queue in items (0: none)."},
			func() float64 { return float64(s.svc.QueueStats().Limit) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "paddock_si_queue_waits_total", Help: "SI calls that found the queue full and waited."},
			func() float64 { return float64(s.svc.QueueStats().Waits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "paddock_si_queue_refused_total", Help: "SI calls refused after the queue stayed full for the whole wait."},
			func() float64 { return float64(s.svc.QueueStats().Refused) }),
	)
}

// handler is the REST API, with metrics and events mounted, behind the
// token check when reads need the token too.
func (s *Server) handler(token string, reads bool) http.Handler {
	h := rest.New(s.svc, rest.Options{
		Token: token, Health: s.health, History: s.history,
		Metrics:     s.metrics.CachedHandler(MetricsCacheTTL),
		EventsBatch: s.events.BatchHandler(), EventsStream: s.events.StreamHandler(),
		LogLevel: s.logs.Level(logging.Root).String(), EventStreams: s.eventStreams,
	})
	h = &responseCache{next: h, src: s.svc}
	if s.uiDir != "" {
		h = withUI(h, s.uiDir)
	}
	if token == "" || !reads {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// CORS preflights carry no credentials
		if r.Method != http.MethodOptions && !bearer.Matches(r.Header.Get("Authorization"), token) {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.Header().Set("WWW-Authenticate", `Bearer realm="paddock"`)
			w.WriteHeader(http.StatusUnauthorized)
			msg := "missing or wrong bearer token in the Authorization header"
			_ = json.NewEncoder(w).Encode(events.ErrorInfo{StatusCode: http.StatusUnauthorized, Message: msg, Description: msg})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// eventStreams lists the open event streams for the state dump.
func (s *Server) eventStreams() []rest.EventStreamInfo {
	streams := s.events.Streams()
	out := make([]rest.EventStreamInfo, len(streams))
	for i, e := range streams {
		out[i] = rest.EventStreamInfo{Name: e.Name, CreatedAt: e.CreatedAt}
	}
	return out
}

// applyExtra applies an RM's extra configuration to logging, events and
// the health check interval (runs on the scheduler goroutine; all are
// quick).
func (s *Server) applyExtra(rmID string, extra map[string]string) {
	for _, apply := range []func(map[string]string) error{s.logs.Apply, s.events.Apply, s.health.Apply} {
		if err := apply(extra); err != nil {
			s.log.Warn("extra configuration", "rmID", rmID, "err", err)
		}
	}
}

// RESTAddr and GRPCAddr are the addresses listened on ("" when not
// served).
func (s *Server) RESTAddr() string { return addrString(s.restAddr) }
func (s *Server) GRPCAddr() string { return addrString(s.grpcAddr) }

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// API is the in-process SI of the scheduler: what a gRPC RM reaches, for
// an RM in the same process (RMs registering without a configuration get
// Options.Config).
func (s *Server) API() api.SchedulerAPI { return s.api }

// Service is the scheduler service.
func (s *Server) Service() *rmproxy.Service { return s.svc }

// Events is the event history.
func (s *Server) Events() *events.Service { return s.events }

// Metrics are the metrics.
func (s *Server) Metrics() *metrics.Metrics { return s.metrics }

// Health is the health checker.
func (s *Server) Health() *health.Checker { return s.health }

// Err reports a listener that failed after Start.
func (s *Server) Err() <-chan error { return s.serveErr }

// Shutdown stops gracefully: event streams end after what they have
// queued, REST requests in flight finish (until ctx ends), RMs' gRPC
// streams end with Unavailable, then the scheduler stops.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.stopOnce.Do(func() {
		s.log.Info("paddock shutting down")
		s.events.Close()
		if s.http != nil {
			if err = s.http.Shutdown(ctx); err != nil {
				_ = s.http.Close()
			}
		}
		s.cancel()
		s.loops.Wait()
		if s.grpc != nil {
			s.grpc.Stop()
		}
		s.svc.Stop()
		s.log.Info("paddock stopped")
	})
	return err
}

// defaultConfig gives RMs that register without a configuration the
// server's -config file.
type defaultConfig struct {
	api.SchedulerAPI
	config string
}

func (d defaultConfig) RegisterResourceManager(req *si.RegisterResourceManagerRequest, cb api.ResourceManagerCallback) (*si.RegisterResourceManagerResponse, error) {
	if req != nil && strings.TrimSpace(req.Config) == "" {
		cp := proto.Clone(req).(*si.RegisterResourceManagerRequest)
		cp.Config = d.config
		return d.SchedulerAPI.RegisterResourceManager(cp, cb)
	}
	return d.SchedulerAPI.RegisterResourceManager(req, cb)
}
