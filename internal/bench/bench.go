// Package bench measures the scheduler end to end through the in-process
// SI API (or over gRPC on loopback, Scenario.GRPC): a resource manager
// registers, reports nodes and applications, and submits asks; the clock
// runs from the first ask submitted until the RM callback has received
// the last allocation, and the first allocation's latency is from the
// first ask submitted until the RM callback receives it. Both
// `go test -bench` and `paddock bench` use it.
package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/client"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/grpcserver"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// Scenario is one benchmark configuration.
type Scenario struct {
	Nodes  int
	Asks   int
	Apps   int
	Queues int
	// Mixed asks cycle through four shapes; uniform asks are all 1 core,
	// 1 GiB.
	Mixed bool
	// Shared asks of one shape share one SI resource message, so the
	// RM's own requests take less memory (the scale scenario).
	Shared bool
	// SeeAllocations registers the RM as one whose Predicates answers
	// depend on the allocations it heard of, as the Kubernetes shim's do
	// (paddock.predicates.seeAllocations, the default): Paddock delivers
	// every allocation before asking it about the next, one callback per
	// allocation. Unset, the benchmark's RM, which refuses no node, says
	// its answers do not depend on them, and deliveries stay batched.
	SeeAllocations bool
	// GRPC runs the RM over gRPC on loopback (package client against
	// package grpcserver, in this process) instead of in process: the
	// same asks, the RM's encoding and the server's decoding included.
	GRPC bool
	// Tags gives every ask that many allocation tags (up to len(tagNames)),
	// as the Kubernetes shim tags its pods' asks: namespace, pod name,
	// creation time and labels. They come back with each allocation.
	Tags int
}

// tagNames are the tags a scenario's asks carry, in this order; the
// values of the pod name and the creation time differ per ask, the
// others per application or not at all.
var tagNames = [...]string{
	"kubernetes.io/meta/namespace", "kubernetes.io/meta/podName", common.CreationTime,
	"kubernetes.io/label/app", "kubernetes.io/label/team", "kubernetes.io/label/tier",
	"kubernetes.io/label/version", "kubernetes.io/meta/podUid",
}

// tags returns the first n tags of ask j of application app.
func tags(n, j int, app string) map[string]string {
	if n <= 0 {
		return nil
	}
	all := [len(tagNames)]string{"default", fmt.Sprintf("pod-%07d", j), "1764201600", app, "batch", "backend", "v1", fmt.Sprintf("uid-%012d", j)}
	t := make(map[string]string, n)
	for i := range min(n, len(tagNames)) {
		t[tagNames[i]] = all[i]
	}
	return t
}

// Scale is the scale scenario of issue 17: a 50,000-node partition and
// 1,000,000 pending asks.
var Scale = Scenario{Nodes: 50000, Asks: 1000000, Apps: 100, Queues: 10, Shared: true}

// Name is the scenario's benchmark name.
func (s Scenario) Name() string {
	shape := "uniform"
	if s.Mixed {
		shape = "mixed"
	}
	name := fmt.Sprintf("nodes=%d/asks=%d/apps=%d/queues=%d/%s", s.Nodes, s.Asks, s.Apps, s.Queues, shape)
	if s.SeeAllocations {
		name += "/see-allocations"
	}
	if s.GRPC {
		name += "/grpc"
	}
	if s.Tags > 0 {
		name += fmt.Sprintf("/tags=%d", min(s.Tags, len(tagNames)))
	}
	return name
}

// Result is what one run measured.
type Result struct {
	Scenario  Scenario
	Allocated int
	Elapsed   time.Duration
	// First is the time from the first ask submitted until the RM
	// callback received the first allocation.
	First      time.Duration
	PerSecond  float64
	NsPerAlloc float64
	// CPUPerAlloc is the process's CPU time (all goroutines, the RM's and
	// the garbage collector's included) per allocation: steadier than the
	// wall clock on a loaded machine.
	CPUPerAlloc float64
	HeapAllocs  float64 // heap allocations per decision
	// GCShare is the garbage collector's CPU time (the runtime's
	// estimate: background and idle mark workers, assists, pauses) as a
	// fraction of the process's CPU time over the measured part.
	GCShare  float64
	PeakHeap uint64 // bytes in use at the end of the run
	// Register is how long the nodes took to register (from the first
	// node sent until the RM heard of the last one accepted).
	Register time.Duration
	// BytesPerNode is the live heap the scheduler grew by per node
	// registered, BytesPerAsk per ask once all were allocated (the
	// allocation it became included).
	BytesPerNode, BytesPerAsk float64
	// PeakRSS is the process's peak resident memory (Linux; 0 elsewhere).
	PeakRSS uint64
}

func (r Result) String() string {
	return fmt.Sprintf("%-48s %9d allocs in %8.1f ms  first %7s  %10.0f allocs/s  %7.0f ns/alloc  %7.0f cpu-ns/alloc  %5.1f heap-allocs/alloc  heap %6.1f MiB  gc %4.1f %%",
		r.Scenario.Name(), r.Allocated, float64(r.Elapsed.Microseconds())/1000, ms(r.First), r.PerSecond, r.NsPerAlloc, r.CPUPerAlloc, r.HeapAllocs, float64(r.PeakHeap)/(1<<20), 100*r.GCShare)
}

// Memory describes the run's memory and node registration.
func (r Result) Memory() string {
	return fmt.Sprintf("%-48s nodes registered in %s  %6.0f B/node  %6.0f B/ask  peak RSS %6.1f MiB",
		r.Scenario.Name(), ms(r.Register), r.BytesPerNode, r.BytesPerAsk, float64(r.PeakRSS)/(1<<20))
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// gcCPU is the garbage collector's CPU time so far, as the runtime
// estimates it.
func gcCPU() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return s[0].Value.Float64()
}

// peakRSS reads the process's peak resident set (VmHWM) on Linux.
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// ms formats a latency in milliseconds with one decimal.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
}

// Scenarios returns the standard matrix of issue #7: M nodes x N asks in
// three splits, uniform and mixed.
func Scenarios() []Scenario {
	var out []Scenario
	for _, m := range []int{1000, 5000, 10000} {
		for _, n := range []int{10000, 100000} {
			for _, split := range [][2]int{{2, 1}, {100, 10}, {1000, 10}} {
				for _, mixed := range []bool{false, true} {
					out = append(out, Scenario{Nodes: m, Asks: n, Apps: split[0], Queues: split[1], Mixed: mixed})
				}
			}
		}
	}
	return out
}

// counter is the RM side of the benchmark.
type counter struct {
	allocated atomic.Int64
	accNodes  atomic.Int64
	accApps   atomic.Int64
	rejected  atomic.Int64
	target    int64
	// first is when the first allocation arrived (Unix ns, 0: none yet)
	first atomic.Int64
	done  chan struct{}
	once  sync.Once
}

func (c *counter) UpdateAllocation(r *si.AllocationResponse) error {
	c.rejected.Add(int64(len(r.RejectedAllocations)))
	if len(r.New) > 0 && c.first.Load() == 0 {
		c.first.CompareAndSwap(0, time.Now().UnixNano())
	}
	if c.allocated.Add(int64(len(r.New))) >= c.target && c.target > 0 {
		c.once.Do(func() { close(c.done) })
	}
	return nil
}
func (c *counter) UpdateApplication(r *si.ApplicationResponse) error {
	c.accApps.Add(int64(len(r.Accepted)))
	c.rejected.Add(int64(len(r.Rejected)))
	return nil
}
func (c *counter) UpdateNode(r *si.NodeResponse) error {
	c.accNodes.Add(int64(len(r.Accepted)))
	c.rejected.Add(int64(len(r.Rejected)))
	return nil
}
func (c *counter) Predicates(*si.PredicatesArgs) error { return nil }
func (c *counter) PreemptionPredicates(*si.PreemptionPredicatesArgs) *si.PreemptionPredicatesResponse {
	return &si.PreemptionPredicatesResponse{Success: true}
}
func (c *counter) SendEvent([]*si.EventRecord)                                              {}
func (c *counter) UpdateContainerSchedulingState(*si.UpdateContainerSchedulingStateRequest) {}

func queuesYAML(n int) string {
	var b strings.Builder
	b.WriteString("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: \"*\"\n        queues:\n")
	for i := range n {
		fmt.Fprintf(&b, "          - name: q%d\n", i)
	}
	return b.String()
}

func res(cpu, mem int64) *si.Resource {
	return &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: cpu}, "memory": {Value: mem}}}
}

var shapes = [4][2]int64{{1000, 1 << 30}, {500, 2 << 30}, {2000, 512 << 20}, {250, 256 << 20}}

func waitFor(what string, cond func() bool, c *counter) error {
	deadline := time.Now().Add(5 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("bench: timed out waiting for %s (rejected %d)", what, c.rejected.Load())
		}
		time.Sleep(200 * time.Microsecond)
	}
	return nil
}

// Run executes one scenario and returns what it measured.
func Run(sc Scenario) (Result, error) { return RunWith(sc, nil) }

// Measure, when not nil, is called as the clock starts (after the nodes,
// applications and asks are built) and the function it returns as the
// clock stops: `paddock bench -cpuprofile` profiles only the measured
// part of each scenario with it.
var Measure func() (stop func())

// RunWith is Run with setup applied to the service before the RM
// registers (to install hooks, for instance); setup may be nil, the
// function it returns (when not nil) runs once the scenario is over, and
// its error ends the scenario before it starts.
func RunWith(sc Scenario, setup func(*rmproxy.Service) (stop func(), err error)) (Result, error) {
	svc := rmproxy.New(clock.Real{})
	defer svc.Stop()
	if setup != nil {
		stop, err := setup(svc)
		if err != nil {
			return Result{}, fmt.Errorf("set-up: %w", err)
		}
		if stop != nil {
			defer stop()
		}
	}
	var rm api.SchedulerAPI = svc
	if sc.GRPC {
		srv := grpcserver.New(svc, grpcserver.Options{Logger: slog.New(slog.DiscardHandler)})
		addr, err := srv.Listen("127.0.0.1:0")
		if err != nil {
			return Result{}, err
		}
		defer srv.Stop()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cl, err := client.Dial(ctx, addr.String(), client.Options{})
		cancel()
		if err != nil {
			return Result{}, err
		}
		defer cl.Close()
		rm = cl
	}
	c := &counter{done: make(chan struct{})}
	extra := map[string]string{config.ExtraPredicatesSeeAllocations: strconv.FormatBool(sc.SeeAllocations)}
	if _, err := rm.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "bench", Config: queuesYAML(sc.Queues), ExtraConfig: extra}, c); err != nil {
		return Result{}, err
	}
	const batch = 1000
	base, regStart := liveHeap(), time.Now()
	for i := 0; i < sc.Nodes; i += batch {
		var nodes []*si.NodeInfo
		for j := i; j < min(i+batch, sc.Nodes); j++ {
			nodes = append(nodes, &si.NodeInfo{NodeID: fmt.Sprintf("node-%06d", j), Action: si.NodeInfo_CREATE, SchedulableResource: res(128000, 512<<30)})
		}
		if err := rm.UpdateNode(&si.NodeRequest{RmID: "bench", Nodes: nodes}); err != nil {
			return Result{}, err
		}
	}
	var apps []*si.AddApplicationRequest
	for i := range sc.Apps {
		apps = append(apps, &si.AddApplicationRequest{ApplicationID: fmt.Sprintf("app-%05d", i), QueueName: fmt.Sprintf("root.q%d", i%sc.Queues), Ugi: &si.UserGroupInformation{User: fmt.Sprintf("user%d", i%50)}})
	}
	if err := waitFor("nodes", func() bool { return c.accNodes.Load() == int64(sc.Nodes) }, c); err != nil {
		return Result{}, err
	}
	register := time.Since(regStart)
	withNodes := liveHeap()
	if err := rm.UpdateApplication(&si.ApplicationRequest{RmID: "bench", New: apps}); err != nil {
		return Result{}, err
	}
	if err := waitFor("apps", func() bool { return c.accApps.Load() == int64(sc.Apps) }, c); err != nil {
		return Result{}, err
	}
	// build the asks before the clock starts: the RM's own work is not ours
	var reqs []*si.AllocationRequest
	var shared [len(shapes)]*si.Resource
	for i, sh := range shapes {
		shared[i] = res(sh[0], sh[1])
	}
	for i := 0; i < sc.Asks; i += batch {
		var asks []*si.Allocation
		for j := i; j < min(i+batch, sc.Asks); j++ {
			k := 0
			if sc.Mixed {
				k = j % len(shapes)
			}
			r := shared[k]
			if !sc.Shared {
				r = res(shapes[k][0], shapes[k][1])
			}
			app := fmt.Sprintf("app-%05d", j%sc.Apps)
			asks = append(asks, &si.Allocation{AllocationKey: fmt.Sprintf("ask-%07d", j), ApplicationID: app, ResourcePerAlloc: r, AllocationTags: tags(sc.Tags, j, app)})
		}
		reqs = append(reqs, &si.AllocationRequest{RmID: "bench", Allocations: asks})
	}
	c.target = int64(sc.Asks)
	withAsks := liveHeap()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := func() {}
	if Measure != nil {
		stop = Measure()
	}
	start, cpu, gc := time.Now(), cpuTime(), gcCPU()
	for _, r := range reqs {
		if err := rm.UpdateAllocation(r); err != nil {
			stop()
			return Result{}, err
		}
	}
	select {
	case <-c.done:
	case <-time.After(5 * time.Minute):
		stop()
		return Result{}, fmt.Errorf("bench: %d of %d allocated after 5 minutes (rejected %d)", c.allocated.Load(), sc.Asks, c.rejected.Load())
	}
	elapsed, cpu, gc := time.Since(start), cpuTime()-cpu, gcCPU()-gc
	runtime.ReadMemStats(&after)
	stop()
	n := c.allocated.Load()
	end := liveHeap()
	runtime.KeepAlive(reqs)
	return Result{
		Scenario:    sc,
		Allocated:   int(n),
		Elapsed:     elapsed,
		First:       time.Unix(0, c.first.Load()).Sub(start),
		PerSecond:   float64(n) / elapsed.Seconds(),
		NsPerAlloc:  float64(elapsed.Nanoseconds()) / float64(n),
		CPUPerAlloc: float64(cpu.Nanoseconds()) / float64(n),
		HeapAllocs:  float64(after.Mallocs-before.Mallocs) / float64(n),
		GCShare:     gc / max(cpu.Seconds(), 1e-9),
		PeakHeap:    after.HeapInuse,
		Register:    register,
		// the RM's requests are built before withAsks and kept alive
		// to the end, so the growth is the scheduler's
		BytesPerNode: float64(int64(withNodes)-int64(base)) / float64(max(sc.Nodes, 1)),
		BytesPerAsk:  float64(int64(end)-int64(withAsks)) / float64(max(sc.Asks, 1)),
		PeakRSS:      peakRSS(),
	}, nil
}
