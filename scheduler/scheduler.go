// Package scheduler embeds a complete Paddock scheduler in a Go program: the
// scheduling core, the RM proxy behind the Scheduler Interface (SI), and
// optionally the YuniKorn-compatible REST API (with Prometheus metrics and
// events) and the gRPC SI service for remote resource managers.
//
// Start returns a running Scheduler; its API is the SI's api.SchedulerAPI
// from github.com/apache/yunikorn-scheduler-interface, so a resource
// manager written for YuniKorn drives Paddock unchanged: register with a
// callback, then send nodes, applications and allocation asks. View gives a
// read-only copy of the scheduler's state (partitions, queues, applications,
// asks, nodes and allocations) for tests and tools.
//
// A remote RM uses package client instead, against `paddock serve` or a
// Scheduler started here with a GRPCAddr.
package scheduler

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"

	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/logging"
	"github.com/paddock-sched/paddock/internal/serve"
)

// Options configure a Scheduler. The zero value is an in-process scheduler
// with the built-in default queue configuration and no network endpoints.
type Options struct {
	// Config is a queues.yaml (YuniKorn's schema) used for RMs that register
	// without a configuration of their own; "" is the built-in default (one
	// partition "default" with a root queue that creates leaves as asked).
	Config string
	// RESTAddr serves the /ws/v1 REST API, metrics and events on this TCP
	// address (YuniKorn's is ":9080"); "" serves none.
	RESTAddr string
	// UIDir, with RESTAddr, serves a web UI build (such as the YuniKorn
	// web UI's files) at / on the REST address.
	UIDir string
	// GRPCAddr serves the SI gRPC service for remote RMs; "" serves none.
	GRPCAddr string
	// TLS, when set, serves REST and gRPC over TLS.
	TLS *tls.Config
	// Token, when set, is the bearer token gRPC calls and the sensitive
	// REST endpoints must carry.
	Token string
	// LogHandler receives the scheduler's logs (per-subsystem loggers whose
	// levels the RMs' extra configuration sets, e.g. log.level); text on
	// standard error when nil.
	LogHandler slog.Handler
	// SnapshotMaxAge bounds how stale REST, metrics and health reads may be
	// (250 ms when 0; negative: always current). View is always current.
	SnapshotMaxAge time.Duration
	// Clock is the scheduler's time (the real clock when nil): a
	// FakeClock lets an RM's tests pass placeholder timeouts, preemption
	// delays and other timers at once, on virtual time.
	Clock Clock
	// Standby starts the scheduler as a hot standby: it takes in and keeps
	// everything its RMs send but decides nothing until Activate (see
	// Scheduler.Activate).
	Standby bool
	// AllocationRate bounds the allocations a second each RM is given,
	// for RMs whose extra configuration does not set
	// paddock.allocations.perSecond: 0 (the default) for no bound. An RM
	// that acts on each allocation with requests to a cluster (the
	// Kubernetes shim binds each pod through the API server) sets what the
	// cluster takes in, since the SI does not say when an allocation was
	// acted on.
	AllocationRate float64
}

// Scheduler is a running Paddock.
type Scheduler struct {
	srv *serve.Server
}

// Start starts a scheduler. It fails on an invalid Config or an address
// that cannot be listened on, and then leaves nothing running.
func Start(o Options) (*Scheduler, error) {
	logs := logging.NewText(os.Stderr)
	if o.LogHandler != nil {
		logs = logging.New(o.LogHandler)
	}
	var clk clock.Clock
	fake, _ := o.Clock.(*FakeClock)
	switch {
	case fake != nil:
		clk = fake.v
	case o.Clock != nil:
		clk = &forward{c: o.Clock}
	}
	srv, err := serve.Start(serve.Options{
		RESTAddr: o.RESTAddr, GRPCAddr: o.GRPCAddr, TLS: o.TLS, Token: o.Token,
		Config: o.Config, Logs: logs, SnapshotMaxAge: o.SnapshotMaxAge, UIDir: o.UIDir, Clock: clk,
		Standby: o.Standby, AllocationRate: o.AllocationRate,
	})
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	if fake != nil {
		fake.onMove(srv.Service().Wake)
	}
	return &Scheduler{srv: srv}, nil
}

// API is the in-process Scheduler Interface. Calls are safe from any
// goroutine; updates are applied in the order they are made, and
// callbacks reach the RM's api.ResourceManagerCallback from the
// scheduler's delivery goroutine.
func (s *Scheduler) API() api.SchedulerAPI { return s.srv.API() }

// RESTAddr is the address the REST API listens on ("" when not served).
func (s *Scheduler) RESTAddr() string { return s.srv.RESTAddr() }

// GRPCAddr is the address the gRPC SI service listens on ("" when not
// served).
func (s *Scheduler) GRPCAddr() string { return s.srv.GRPCAddr() }

// Shutdown stops the scheduler gracefully: REST requests in flight finish
// (until ctx ends), remote RMs' streams end, then the core stops. Later
// calls return at once.
func (s *Scheduler) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }

// Stop shuts the scheduler down, giving requests in flight five seconds.
func (s *Scheduler) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.Shutdown(ctx)
}

// DefaultConfig is the queue configuration of an RM that registers without
// one and Options.Config is empty: YuniKorn's default, partition "default"
// with a root queue open to all and the tag rule placing an application in
// root.<namespace tag>, created on demand.
const DefaultConfig = config.DefaultText
