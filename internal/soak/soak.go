// Package soak runs a Paddock server for a long time under steady churn
// and checks that it does not grow. The server (package serve) runs in
// this process on loopback ports; remote RMs drive it over gRPC with the
// public client package (nodes created and decommissioned, applications
// added and removed, asks allocated and released, RMs registering and
// closing, configuration reloads) while REST readers poll the API and
// read the event stream. Goroutines, the live heap and the RSS of the
// process (server and load together) are sampled; after a warm-up the
// median of the last quarter of the samples is compared with the median
// of the first quarter against a tolerance, and the least-squares slope
// is reported. `paddock-harness soak` is the command; docs/reliability.md has the
// figures.
//
// The load reuses a bounded pool of node, application and RM IDs: the
// scheduler keeps a terminated application visible for three days
// (reference behaviour), so endless new IDs grow its state by design.
package soak

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paddock-sched/paddock/client"
	"github.com/paddock-sched/paddock/internal/events"
	"github.com/paddock-sched/paddock/internal/logging"
	"github.com/paddock-sched/paddock/internal/serve"
)

// Options configure a soak. Zero values mean the defaults given.
type Options struct {
	// Duration is the length of the soak (60 s); WarmUp the time excluded
	// from the trend (Duration/4); SampleEvery the sampling period (1 s).
	Duration, WarmUp, SampleEvery time.Duration
	// Nodes (50) and Apps (20) are the pools of the main RM's node and
	// application IDs; Outstanding (200) the asks it keeps pending.
	Nodes, Apps, Outstanding int
	// Tick is the main RM's period (100 ms): each tick it releases every
	// allocation it got and asks for as many again.
	Tick time.Duration
	// ChurnEvery (1 s): one application removed and added again (the
	// second half of the pool in turn; the first half lives throughout),
	// one node decommissioned and the previous one created again.
	ChurnEvery time.Duration
	// SideEvery (5 s): a second RM (one of three IDs) dials, registers,
	// adds a node, an application and asks, and closes.
	SideEvery time.Duration
	// ReloadEvery (10 s): the main RM's configuration is reloaded,
	// alternating between two versions.
	ReloadEvery time.Duration
	// Readers (4) poll the REST API, each every ReadEvery (200 ms,
	// jittered); one more reader holds the event stream for StreamFor
	// (10 s) and then opens it again.
	Readers   int
	ReadEvery time.Duration
	StreamFor time.Duration
	// EventRing is the event history's capacity (the server's default
	// when 0). A short soak wants it small, so that it fills during the
	// warm-up.
	EventRing int
	// Tolerances bound each metric's growth (DefaultTolerances when all
	// zero).
	Tolerances [numMetrics]Tolerance
	// Progress, when set, gets a line per sample.
	Progress io.Writer
	// Leak, when set (tests), is called once per main RM batch and REST
	// request: a test makes it leak to show that the soak fails.
	Leak func()
}

func (o *Options) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	defInt := func(n *int, v int) {
		if *n <= 0 {
			*n = v
		}
	}
	def(&o.Duration, time.Minute)
	def(&o.WarmUp, o.Duration/4)
	def(&o.SampleEvery, time.Second)
	def(&o.Tick, 100*time.Millisecond)
	def(&o.ChurnEvery, time.Second)
	def(&o.SideEvery, 5*time.Second)
	def(&o.ReloadEvery, 10*time.Second)
	def(&o.ReadEvery, 200*time.Millisecond)
	def(&o.StreamFor, 10*time.Second)
	defInt(&o.Nodes, 50)
	defInt(&o.Apps, 20)
	defInt(&o.Outstanding, 200)
	defInt(&o.Readers, 4)
	if o.Tolerances == [numMetrics]Tolerance{} {
		o.Tolerances = DefaultTolerances
	}
	if o.Leak == nil {
		o.Leak = func() {}
	}
}

// configs are the two configurations reloads alternate between.
var configs = [2]string{
	"partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: \"*\"\n        queues:\n          - name: a\n          - name: b\n",
	"partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: \"*\"\n        queues:\n          - name: a\n          - name: b\n          - name: c\n",
}

// readPaths are what the REST readers poll: what dashboards and the web
// UI read, with nothing that names a node or application the churn
// removes.
var readPaths = []string{
	"/ws/v1/metrics", "/ws/v1/events/batch?count=100", "/ws/v1/partitions", "/ws/v1/partition/default/queues",
	"/ws/v1/partition/default/nodes", "/ws/v1/partition/default/applications/active", "/ws/v1/clusters",
	"/ws/v1/scheduler/healthcheck", "/ws/v1/scheduler/node-utilizations", "/ws/v1/partition/default/usage/users",
	"/ws/v1/history/apps", "/ws/v1/partition/default/queue/root.a/applications",
}

// counters are the load's counts, shared by its goroutines.
type counters struct {
	allocations, requests, records, errors atomic.Int64
	firstError                             atomic.Value
}

func (c *counters) fail(format string, args ...any) {
	c.errors.Add(1)
	c.firstError.CompareAndSwap(nil, fmt.Sprintf(format, args...))
}

// Run runs a soak and reports the samples and trends. The error is for a
// soak that could not run (the server did not start, the RM could not
// register); a soak that ran reports growth and failed requests in the
// Report (see Report.Failed).
func Run(parent context.Context, o Options) (*Report, error) {
	o.defaults()
	s, err := serve.Start(serve.Options{RESTAddr: "127.0.0.1:0", GRPCAddr: "127.0.0.1:0", Logs: logging.NewText(io.Discard),
		Config: configs[0], Events: events.Options{RingCapacity: o.EventRing}})
	if err != nil {
		return nil, err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = s.Shutdown(sctx)
	}()
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var c counters
	m, err := startMain(ctx, s.GRPCAddr(), o, &c)
	if err != nil {
		return nil, err
	}
	defer m.client.Close()

	// REST shows the RM's partition once the readers' snapshot has caught up
	hc := &http.Client{Timeout: 30 * time.Second}
	base := "http://" + s.RESTAddr()
	if err := restShows(ctx, hc, base+"/ws/v1/partition/default/nodes"); err != nil {
		return nil, err
	}

	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	run(func() { m.loop(ctx) })
	run(func() { sideRMs(ctx, s.GRPCAddr(), o, &c) })
	for i := range o.Readers {
		run(func() { reader(ctx, hc, base, i, o, &c) })
	}
	run(func() { streamReader(ctx, base, o, &c) })

	rep := &Report{WarmUp: o.WarmUp}
	start := time.Now()
	tick := time.NewTicker(o.SampleEvery)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
			smp := measure(time.Since(start), &c)
			rep.Samples = append(rep.Samples, smp)
			if o.Progress != nil {
				fmt.Fprintf(o.Progress, "%8v goroutines %5d heap %7.1f MiB rss %7.1f MiB allocations %d requests %d records %d errors %d\n",
					smp.At.Round(time.Second), smp.Goroutines, float64(smp.HeapLive)/(1<<20), float64(smp.RSS)/(1<<20),
					smp.Allocations, smp.Requests, smp.Records, c.errors.Load())
			}
			done = smp.At >= o.Duration
		}
	}
	cancel()
	wg.Wait()
	rep.Errors = c.errors.Load()
	if v, ok := c.firstError.Load().(string); ok {
		rep.FirstError = v
	}
	if parent.Err() != nil {
		return rep, fmt.Errorf("soak interrupted after %v: %w", time.Since(start).Round(time.Second), parent.Err())
	}
	rep.Trends, err = Trends(rep.Samples, o.WarmUp, o.Tolerances)
	return rep, err
}

var liveHeap = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

// measure samples the process.
func measure(at time.Duration, c *counters) Sample {
	s := Sample{At: at, Goroutines: runtime.NumGoroutine(), RSS: rss(),
		Allocations: c.allocations.Load(), Requests: c.requests.Load(), Records: c.records.Load()}
	h := make([]metrics.Sample, 1)
	copy(h, liveHeap)
	metrics.Read(h)
	if h[0].Value.Kind() == metrics.KindUint64 {
		s.HeapLive = h[0].Value.Uint64()
	}
	return s
}

// rss reads VmRSS from /proc/self/status; 0 when it cannot.
func rss() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// restShows waits up to 30 s for url to answer 200.
func restShows(ctx context.Context, hc *http.Client, url string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("soak: REST never answered %s: %v", url, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// reader polls the REST paths until ctx ends. Every 20th request goes on
// a new connection, so connections come and go too.
func reader(ctx context.Context, hc *http.Client, base string, i int, o Options, c *counters) {
	rng := rand.New(rand.NewPCG(uint64(i), 18))
	fresh := &http.Client{Timeout: hc.Timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	for k := 0; ; k++ {
		select {
		case <-ctx.Done():
			return
		case <-time.After(o.ReadEvery/2 + time.Duration(rng.Int64N(int64(o.ReadEvery)))):
		}
		cl := hc
		if k%20 == 19 {
			cl = fresh
		}
		path := readPaths[(i+k)%len(readPaths)]
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		resp, err := cl.Do(req)
		o.Leak()
		if ctx.Err() != nil {
			if err == nil {
				resp.Body.Close()
			}
			return
		}
		c.requests.Add(1)
		if err != nil {
			c.fail("GET %s: %v", path, err)
			continue
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if ctx.Err() != nil {
			return
		}
		if resp.StatusCode != http.StatusOK || err != nil {
			c.fail("GET %s: %d %v", path, resp.StatusCode, err)
		}
	}
}

// streamReader reads the event stream, a connection per StreamFor.
func streamReader(ctx context.Context, base string, o Options, c *counters) {
	for ctx.Err() == nil {
		sctx, cancel := context.WithTimeout(ctx, o.StreamFor)
		req, _ := http.NewRequestWithContext(sctx, http.MethodGet, base+"/ws/v1/events/stream", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			if ctx.Err() == nil {
				c.fail("event stream: %v", err)
				time.Sleep(time.Second)
			}
			continue
		}
		c.requests.Add(1)
		if resp.StatusCode != http.StatusOK {
			c.fail("event stream: %s", resp.Status)
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			if len(sc.Bytes()) > 0 {
				c.records.Add(1)
			}
		}
		// the stream ends when sctx does; any other end is a failure
		if sctx.Err() == nil {
			c.fail("event stream ended early: %v", sc.Err())
		}
		resp.Body.Close()
		cancel()
	}
}

// dial connects a client for the load.
func dial(ctx context.Context, addr string) (*client.Client, error) {
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return client.Dial(dctx, addr, client.Options{CallTimeout: 30 * time.Second})
}
