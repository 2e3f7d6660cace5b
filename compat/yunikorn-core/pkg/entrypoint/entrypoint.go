// Package entrypoint starts Paddock the way the reference core's
// entrypoint starts YuniKorn: the scheduler with its in-process SI for the
// RM, and the REST API (web UI, admission controller, operators) on
// YuniKorn's port 9080.
package entrypoint

import (
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	paddock "github.com/paddock-sched/paddock/scheduler"

	"github.com/apache/yunikorn-core/pkg/scheduler"
)

// RESTAddr is where StartAllServices serves the REST API, YuniKorn's fixed
// port. The environment variable PADDOCK_REST_ADDR overrides it ("off"
// serves none).
const RESTAddr = ":9080"

// ServiceContext is a running scheduler.
type ServiceContext struct {
	// RMProxy is the SI the RM registers with and updates.
	RMProxy api.SchedulerAPI
	// Scheduler reads the scheduler's state under the reference's names.
	Scheduler *scheduler.Scheduler
	// Paddock is the scheduler itself.
	Paddock *paddock.Scheduler
}

// StartAllServices starts a scheduler logging to standard error.
func StartAllServices() *ServiceContext {
	return start(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}), false)
}

// StartAllServicesWithLogger starts a scheduler logging through the RM's
// zap logger (its level gates Paddock's per-subsystem levels). The zap
// configuration is accepted for the reference's signature.
func StartAllServicesWithLogger(logger *zap.Logger, _ *zap.Config) *ServiceContext {
	if logger == nil {
		return StartAllServices()
	}
	return start(zapslog.NewHandler(logger.Named("core").Core(), zapslog.WithCaller(false)), false)
}

// StartStandbyWithLogger is StartAllServicesWithLogger for a hot standby
// (a replica that does not hold the leader's lease): the scheduler takes
// in everything the shim sends and keeps the whole state, answers the
// shim's node registrations, and decides nothing and tells the shim
// nothing else until ServiceContext.Activate. Paddock's own main for the
// shim (deploy/ha) starts it this way when leader election is on.
func StartStandbyWithLogger(logger *zap.Logger, _ *zap.Config) *ServiceContext {
	if logger == nil {
		return start(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}), true)
	}
	return start(zapslog.NewHandler(logger.Named("core").Core(), zapslog.WithCaller(false)), true)
}

// Activate makes a standby lead: what it held for the shim is delivered
// and a scheduling pass runs at once (scheduler.Scheduler.Activate).
func (s *ServiceContext) Activate() error {
	if s.Paddock == nil {
		return errNotStarted
	}
	return s.Paddock.Activate()
}

// Deactivate fences the scheduler: no decision is made or delivered from
// the moment it returns (scheduler.Scheduler.Deactivate).
func (s *ServiceContext) Deactivate() {
	if s.Paddock != nil {
		s.Paddock.Deactivate()
	}
}

// LeadUntil pauses the scheduler from t until a later call moves t past
// the present again (the lease's renew deadline; a renewal after a lapse
// resumes it; scheduler.Scheduler.LeadUntil).
func (s *ServiceContext) LeadUntil(t time.Time) {
	if s.Paddock != nil {
		s.Paddock.LeadUntil(t)
	}
}

// Standby reports whether the scheduler is a standby.
func (s *ServiceContext) Standby() bool { return s.Paddock != nil && s.Paddock.Standby() }

// Diverged reports whether a fence stranded decisions the shim never heard
// of: the scheduler never leads again (scheduler.Scheduler.Diverged).
func (s *ServiceContext) Diverged() bool { return s.Paddock != nil && s.Paddock.Diverged() }

var errNotStarted = errors.New("entrypoint: the scheduler did not start")

// AllocationRate is how many allocations a second the shim is given at
// most, unless its ConfigMap sets paddock.allocations.perSecond (0 there
// lifts the bound). The shim binds each allocated pod with a request to the
// API server, from a goroutine of its own, and the SI never says when a
// bind is done: allocations decided faster than the API server binds
// become thousands of requests in flight at once, over as many new
// connections, and the API server slows down for every client (the
// Kubernetes docs, docs/kubernetes.md, give the measurements).
const AllocationRate = 200

// start starts Paddock with REST on RESTAddr. Like the reference, a REST
// port that cannot be listened on (a second scheduler in one process, as
// the shim's tests start) is logged and the scheduler runs without it.
func start(h slog.Handler, standby bool) *ServiceContext {
	log := slog.New(h)
	addr := RESTAddr
	if v, ok := os.LookupEnv("PADDOCK_REST_ADDR"); ok {
		addr = v
		if v == "off" {
			addr = ""
		}
	}
	o := paddock.Options{RESTAddr: addr, LogHandler: h, Standby: standby, AllocationRate: AllocationRate}
	p, err := paddock.Start(o)
	if err != nil && addr != "" {
		log.Error("REST API not started", "addr", addr, "error", err)
		o.RESTAddr = ""
		p, err = paddock.Start(o)
	}
	if err != nil {
		// the default configuration and no listener: cannot fail
		// unless Paddock itself is broken
		log.Error("scheduler not started", "error", err)
		return &ServiceContext{}
	}
	return &ServiceContext{RMProxy: p.API(), Scheduler: scheduler.New(p), Paddock: p}
}

// StopAll stops the scheduler and its REST API.
func (s *ServiceContext) StopAll() {
	if s.Paddock != nil {
		s.Paddock.Stop()
	}
}
