// Package hostile is the hostile-RM driver (issue #18): it starts a
// Paddock server (package serve) in this process on loopback ports and
// sends it random and hostile Scheduler Interface traffic over gRPC, the
// mix the SI fuzz targets use (package sigen): node, application and
// allocation requests with nil entries, unknown nodes, applications and
// keys, every node action and termination type, negative, huge and
// unknown resources, gangs, foreign and recovered allocations;
// configuration updates, valid and invalid, for known and unknown RMs;
// re-registrations with any configuration; and raw SI streams that greet
// with an unknown or empty rmID, or a live RM's from another connection,
// or carry bytes that are no SI message at all. After every batch it waits until the server has applied the
// batch (a marker on each stream, answered in order) and checks the
// accounting (rmproxy.Service.Audit: no total negative or above the
// maximum, node sums exact, Verify; and the consistency health check) and
// that the REST health check answers. `paddock-harness hostile` is the command.
package hostile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"google.golang.org/grpc"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/client"
	"github.com/paddock-sched/paddock/internal/health"
	"github.com/paddock-sched/paddock/internal/logging"
	"github.com/paddock-sched/paddock/internal/serve"
	"github.com/paddock-sched/paddock/internal/sigen"
)

// Options configure a run. Zero values mean the defaults given.
type Options struct {
	// Messages is how many SI messages to send (10,000); Batch how many
	// go between two checks (100).
	Messages, Batch int
	// Seed seeds the random choices (a run is repeatable up to the
	// scheduler's own timing).
	Seed uint64
	// Progress, when set, gets a line every ProgressEvery (10 s).
	Progress      io.Writer
	ProgressEvery time.Duration
	// MaxProblems is how many problems are kept in the Result (100); all
	// are counted.
	MaxProblems int
}

// Result is what a run did and found.
type Result struct {
	// Messages counts the SI messages sent: node, application and
	// allocation requests, configuration updates, registrations and raw
	// stream messages. Raw counts the raw streams opened and Garbage the
	// non-SI frames among their messages.
	Messages, Batches, Raw, Garbage int64
	// Registrations counts re-registrations, hostile and resyncing;
	// Refused the calls the server refused (an invalid configuration, an
	// unknown RM).
	Registrations, Refused int64
	// Problems are accounting differences or a health check that did not
	// answer, with the batch they were found after; ProblemCount counts
	// all of them.
	Problems     []string
	ProblemCount int64
	Elapsed      time.Duration
}

func (r Result) String() string {
	return fmt.Sprintf("%d SI messages in %d batches in %v (%.0f messages/s): %d raw streams (%d garbage frames), %d registrations, %d calls refused; %d problems",
		r.Messages, r.Batches, r.Elapsed.Round(time.Millisecond), float64(r.Messages)/r.Elapsed.Seconds(), r.Raw, r.Garbage,
		r.Registrations, r.Refused, r.ProblemCount)
}

func (o *Options) defaults() {
	if o.Messages <= 0 {
		o.Messages = 10_000
	}
	if o.Batch <= 0 {
		o.Batch = 100
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 10 * time.Second
	}
	if o.MaxProblems <= 0 {
		o.MaxProblems = 100
	}
}

// The markers sent after each batch: an application in no queue, a node
// with a negative capacity and an ask of no application. The scheduler
// answers each (accepted or, normally, rejected) in stream order.
const marker = "marker"

// rm is one well-behaved-looking RM the driver works through.
type rm struct {
	id string
	c  *client.Client
	cb *markerCallback
}

// markerCallback signals the answers to the markers; everything else is
// dropped.
type markerCallback struct {
	callback.Nop
	alloc, app, node chan struct{}
}

func newMarkerCallback() *markerCallback {
	return &markerCallback{alloc: make(chan struct{}, 16), app: make(chan struct{}, 16), node: make(chan struct{}, 16)}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func (m *markerCallback) UpdateAllocation(resp *si.AllocationResponse) error {
	for _, r := range resp.RejectedAllocations {
		if r.AllocationKey == marker {
			signal(m.alloc)
		}
	}
	for _, a := range resp.New {
		if a.AllocationKey == marker {
			signal(m.alloc)
		}
	}
	return nil
}

func (m *markerCallback) UpdateApplication(resp *si.ApplicationResponse) error {
	for _, a := range resp.Accepted {
		if a.ApplicationID == marker {
			signal(m.app)
		}
	}
	for _, a := range resp.Rejected {
		if a.ApplicationID == marker {
			signal(m.app)
		}
	}
	return nil
}

func (m *markerCallback) UpdateNode(resp *si.NodeResponse) error {
	for _, n := range resp.Accepted {
		if n.NodeID == marker {
			signal(m.node)
		}
	}
	for _, n := range resp.Rejected {
		if n.NodeID == marker {
			signal(m.node)
		}
	}
	return nil
}

// driver holds a run's state.
type driver struct {
	o     Options
	srv   *serve.Server
	g     *sigen.Gen
	rms   []*rm
	res   Result
	hc    *http.Client
	conn  *grpc.ClientConn // raw streams
	batch int64
}

// Run runs the driver. err is for a run that could not go on (the
// server did not start, an RM could not register again); what the
// checks found is in Result.Problems.
func Run(ctx context.Context, o Options) (Result, error) {
	o.defaults()
	srv, err := serve.Start(serve.Options{RESTAddr: "127.0.0.1:0", GRPCAddr: "127.0.0.1:0", Logs: logging.NewText(io.Discard), Config: sigen.Config})
	if err != nil {
		return Result{}, err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	rng := rand.New(rand.NewPCG(o.Seed, 18))
	d := &driver{o: o, srv: srv, g: &sigen.Gen{C: rng, RMs: []string{"rm1", "rm2"}}, hc: &http.Client{Timeout: 30 * time.Second}}
	defer d.close()
	for _, id := range []string{"rm1", "rm2"} {
		c, err := dial(ctx, srv.GRPCAddr())
		if err != nil {
			return d.res, err
		}
		defer c.Close()
		r := &rm{id: id, c: c, cb: newMarkerCallback()}
		if err := d.register(ctx, r, sigen.Config); err != nil {
			return d.res, err
		}
		d.rms = append(d.rms, r)
		d.seed(r)
	}
	start := time.Now()
	lastProgress := start
	for d.res.Messages < int64(o.Messages) {
		if err := ctx.Err(); err != nil {
			d.res.Elapsed = time.Since(start)
			return d.res, err
		}
		for range o.Batch {
			if err := d.message(ctx); err != nil {
				d.res.Elapsed = time.Since(start)
				return d.res, err
			}
		}
		d.batch++
		d.res.Batches++
		if err := d.check(ctx); err != nil {
			d.res.Elapsed = time.Since(start)
			return d.res, err
		}
		if o.Progress != nil && time.Since(lastProgress) >= o.ProgressEvery {
			lastProgress = time.Now()
			d.res.Elapsed = time.Since(start)
			fmt.Fprintln(o.Progress, d.res)
		}
	}
	d.res.Elapsed = time.Since(start)
	return d.res, nil
}

func dial(ctx context.Context, addr string) (*client.Client, error) {
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return client.Dial(dctx, addr, client.Options{CallTimeout: 30 * time.Second})
}

// register (re-)registers r with a configuration; an invalid one is
// refused and r then registers with sigen.Config, so that it can go on.
func (d *driver) register(ctx context.Context, r *rm, config string) error {
	d.res.Messages++
	d.res.Registrations++
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	err := r.c.Register(rctx, &si.RegisterResourceManagerRequest{RmID: r.id, Config: config, PolicyGroup: d.g.Pick("queues", "")}, r.cb)
	if err == nil {
		return nil
	}
	if config == sigen.Config {
		return fmt.Errorf("register %s: %w", r.id, err)
	}
	d.res.Refused++
	return d.register(ctx, r, sigen.Config)
}

// seed gives a new RM what the fuzz targets' scheduler starts with: two
// nodes, two applications, asks and a foreign allocation.
func (d *driver) seed(r *rm) {
	_ = r.c.UpdateNode(&si.NodeRequest{RmID: r.id, Nodes: []*si.NodeInfo{
		{NodeID: "n0", Action: si.NodeInfo_CREATE, SchedulableResource: sigen.Res(4000, 8<<30)},
		{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: sigen.Res(4000, 8<<30)},
	}})
	_ = r.c.UpdateApplication(&si.ApplicationRequest{RmID: r.id, New: []*si.AddApplicationRequest{
		{ApplicationID: "app0", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
		{ApplicationID: "app1", QueueName: "root.b", Ugi: &si.UserGroupInformation{User: "bob"}},
	}})
	_ = r.c.UpdateAllocation(&si.AllocationRequest{RmID: r.id, Allocations: []*si.Allocation{
		{AllocationKey: "k0", ApplicationID: "app0", ResourcePerAlloc: sigen.Res(1000, 1<<30)},
		{AllocationKey: "k1", ApplicationID: "app1", ResourcePerAlloc: sigen.Res(1000, 1<<30)},
		{AllocationKey: "f0", NodeID: "n1", ResourcePerAlloc: sigen.Res(500, 1<<30), AllocationTags: map[string]string{common.Foreign: common.AllocTypeDefault}},
	}})
	d.res.Messages += 3
}

// message sends one message drawn at random.
func (d *driver) message(ctx context.Context) error {
	g := d.g
	r := d.rms[g.Count(len(d.rms))]
	var err error
	switch x := g.Count(200); {
	case x < 60:
		err = r.c.UpdateNode(g.NodeRequest(r.id))
	case x < 120:
		err = r.c.UpdateApplication(g.ApplicationRequest(r.id))
	case x < 180:
		err = r.c.UpdateAllocation(g.AllocationRequest(r.id))
	case x < 190:
		// any RM's configuration, known or not, valid or not
		if r.c.UpdateConfiguration(g.ConfigRequest(g.RM())) != nil {
			d.res.Refused++
		}
	case x < 193:
		// a re-registration: a full resync of part of what it had
		if err := d.register(ctx, r, sigen.Configs[g.Count(len(sigen.Configs))]); err != nil {
			return err
		}
		err = errors.Join(r.c.UpdateNode(&si.NodeRequest{RmID: r.id, Nodes: []*si.NodeInfo{g.NodeInfo()}}),
			r.c.UpdateAllocation(&si.AllocationRequest{RmID: r.id, Allocations: []*si.Allocation{g.Allocation()}}))
		d.res.Messages++
	default:
		d.raw(ctx)
		return nil
	}
	d.res.Messages++
	if err != nil {
		// the streams broke (the server ended them): register again
		d.res.Refused++
		return d.register(ctx, r, sigen.Config)
	}
	return nil
}

// check waits until the server has applied the batch and checks it.
func (d *driver) check(ctx context.Context) error {
	for _, r := range d.rms {
		if err := d.barrier(ctx, r); err != nil {
			return err
		}
	}
	problems, _, err := d.srv.Service().Audit(ctx)
	if err != nil {
		return err
	}
	for _, p := range problems {
		d.problem("%s", p)
	}
	snap, err := d.srv.Service().Snapshot(ctx)
	if err != nil {
		return err
	}
	for _, c := range health.Evaluate(snap, snap.Counters).HealthChecks {
		if c.Name == "Consistency of data" && !c.Succeeded {
			d.problem("%s: %s", c.Name, c.DiagnosisMessage)
		}
	}
	d.health(ctx)
	return nil
}

// barrier sends the markers on r's three streams and waits for their
// answers: the streams are applied in order, so the batch is in.
func (d *driver) barrier(ctx context.Context, r *rm) error {
	for attempt := 0; ; attempt++ {
		err := errors.Join(
			r.c.UpdateApplication(&si.ApplicationRequest{RmID: r.id, New: []*si.AddApplicationRequest{{ApplicationID: marker, QueueName: "root.marker-queue-that-is-not",
				Ugi: &si.UserGroupInformation{User: "marker"}}}}),
			r.c.UpdateNode(&si.NodeRequest{RmID: r.id, Nodes: []*si.NodeInfo{{NodeID: marker, Action: si.NodeInfo_CREATE,
				SchedulableResource: &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: -1}}}}}}),
			r.c.UpdateAllocation(&si.AllocationRequest{RmID: r.id, Allocations: []*si.Allocation{{AllocationKey: marker,
				ResourcePerAlloc: sigen.Res(1, 1)}}}),
		)
		if err == nil {
			timeout := time.After(30 * time.Second)
			for _, ch := range []chan struct{}{r.cb.app, r.cb.node, r.cb.alloc} {
				select {
				case <-ch:
				case <-r.c.Done():
					err = r.c.Err()
				case <-timeout:
					d.problem("rm %s: no answer to a marker within 30 s", r.id)
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
				if err != nil {
					break
				}
			}
			if err == nil {
				return nil
			}
		}
		if attempt == 2 {
			return fmt.Errorf("rm %s: markers not answered after registering again: %w", r.id, err)
		}
		// the streams broke: register again and resend
		d.res.Refused++
		if err := d.register(ctx, r, sigen.Config); err != nil {
			return err
		}
	}
}

func (d *driver) problem(format string, args ...any) {
	d.res.ProblemCount++
	if len(d.res.Problems) < d.o.MaxProblems {
		d.res.Problems = append(d.res.Problems, fmt.Sprintf("after batch %d: ", d.batch)+fmt.Sprintf(format, args...))
	}
}

// health checks that the REST health check answers with its checks, the
// consistency check among them passing.
func (d *driver) health(ctx context.Context) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+d.srv.RESTAddr()+"/ws/v1/scheduler/healthcheck", nil)
	resp, err := d.hc.Do(req)
	if err != nil {
		d.problem("healthcheck: %v", err)
		return
	}
	defer resp.Body.Close()
	var body struct {
		HealthChecks []struct {
			Name             string
			Succeeded        bool
			DiagnosisMessage string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		d.problem("healthcheck: %s, %v", resp.Status, err)
		return
	}
	if len(body.HealthChecks) == 0 {
		d.problem("healthcheck: no checks")
	}
	for _, c := range body.HealthChecks {
		if c.Name == "Consistency of data" && !c.Succeeded {
			d.problem("healthcheck: %s: %s", c.Name, c.DiagnosisMessage)
		}
	}
}
