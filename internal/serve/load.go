package serve

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/client"
	"github.com/paddock-sched/paddock/internal/logging"
)

// LoadOptions configure a load run: a remote RM keeps a stream of SI
// updates going (asks in, allocations released as soon as they arrive,
// new asks for them) while REST readers poll the server.
type LoadOptions struct {
	// Readers is the number of concurrent REST readers (0: none).
	Readers int
	// Interval is each reader's pause between requests (0: none).
	Interval time.Duration
	// Duration is how long the load runs.
	Duration time.Duration
	// MinAllocations, when set, lets the load run past Duration (up to a
	// minute more) until the RM has counted that many allocations, so a
	// check of "some load happened" holds on a busy machine too.
	MinAllocations int64
	// Nodes and Outstanding size the cluster (4 cores each) and the asks
	// the RM keeps pending.
	Nodes, Outstanding int
	// Paths are the REST paths readers cycle through.
	Paths []string
	// Logs receive the server's logs (discarded when nil).
	Logs *logging.Set
}

// DefaultLoadPaths are the paths readers poll: what a dashboard reads.
// The load's applications hold thousands of asks and allocations, so
// their pages (a megabyte of JSON each) are left out; add them with
// LoadOptions.Paths to measure them.
var DefaultLoadPaths = []string{
	"/ws/v1/metrics", "/ws/v1/events/batch?count=100", "/ws/v1/partitions", "/ws/v1/partition/default/queues",
	"/ws/v1/partition/default/node/node-00001", "/ws/v1/clusters", "/ws/v1/scheduler/healthcheck",
	"/ws/v1/scheduler/node-utilizations",
}

// LoadResult is what a load run measured.
type LoadResult struct {
	Requests, Errors uint64
	// FirstError describes one failed request.
	FirstError  string
	Allocations int64
	Elapsed     time.Duration
}

// AllocsPerSecond is the scheduling throughput of the run.
func (r LoadResult) AllocsPerSecond() float64 { return float64(r.Allocations) / r.Elapsed.Seconds() }

func (r LoadResult) String() string {
	return fmt.Sprintf("%d allocations in %v (%.0f allocs/s); %d REST requests (%.0f/s), %d errors",
		r.Allocations, r.Elapsed.Round(time.Millisecond), r.AllocsPerSecond(), r.Requests, float64(r.Requests)/r.Elapsed.Seconds(), r.Errors)
}

// loadRM is the RM side: it releases every allocation it gets and asks
// again, so the scheduler always has Outstanding asks.
type loadRM struct {
	recorder
	allocs  chan []string
	stop    chan struct{}
	counted atomic.Int64
}

func (r *loadRM) UpdateAllocation(resp *si.AllocationResponse) error {
	if len(resp.New) > 0 {
		keys := make([]string, len(resp.New))
		for i, a := range resp.New {
			keys[i] = a.AllocationKey
		}
		r.counted.Add(int64(len(keys)))
		select {
		case r.allocs <- keys:
		case <-r.stop:
		}
	}
	return nil
}

// RunLoad starts a server on loopback, runs the load and stops it.
func RunLoad(o LoadOptions) (LoadResult, error) {
	if o.Duration <= 0 {
		o.Duration = 30 * time.Second
	}
	if o.Nodes <= 0 {
		o.Nodes = 500
	}
	if o.Outstanding <= 0 {
		o.Outstanding = 2000
	}
	if len(o.Paths) == 0 {
		o.Paths = DefaultLoadPaths
	}
	if o.Logs == nil {
		o.Logs = logging.NewText(io.Discard)
	}
	s, err := Start(Options{RESTAddr: "127.0.0.1:0", GRPCAddr: "127.0.0.1:0", Logs: o.Logs,
		Config: "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: \"*\"\n        queues:\n          - name: a\n          - name: b\n"})
	if err != nil {
		return LoadResult{}, err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), o.Duration+time.Minute)
	defer cancel()
	c, err := client.Dial(ctx, s.GRPCAddr(), client.Options{})
	if err != nil {
		return LoadResult{}, err
	}
	defer c.Close()
	stop := make(chan struct{})
	rm := &loadRM{recorder: *newRecorder(), allocs: make(chan []string, 1024), stop: stop}
	if err := c.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "load"}, rm); err != nil {
		return LoadResult{}, err
	}
	ids := make([]string, o.Nodes)
	for i := range ids {
		ids[i] = fmt.Sprintf("node-%05d", i)
	}
	if err := c.UpdateNode(nodes("load", ids...)); err != nil {
		return LoadResult{}, err
	}
	for _, q := range []string{"a", "b"} {
		if err := c.UpdateApplication(app("load", "app-"+q, "root."+q)); err != nil {
			return LoadResult{}, err
		}
	}
	if err := waitUntil(ctx, func() bool {
		rm.mu.Lock()
		defer rm.mu.Unlock()
		return len(rm.accNodes) == o.Nodes && len(rm.accApps) == 2
	}); err != nil {
		return LoadResult{}, fmt.Errorf("load: nodes and apps not accepted: %w", err)
	}

	// REST shows the state once the readers' snapshots have caught up
	ready := &http.Client{Timeout: 10 * time.Second}
	if err := waitUntil(ctx, func() bool {
		resp, err := ready.Get("http://" + s.RESTAddr() + "/ws/v1/partition/default/node/" + ids[len(ids)-1])
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}); err != nil {
		return LoadResult{}, fmt.Errorf("load: REST never showed the nodes: %w", err)
	}

	// the RM's loop: release what was allocated and ask for as much again
	// keys start with the application's letter: "a17" belongs to app-a
	next := 0
	newAsks := func(n int) *si.AllocationRequest {
		req := &si.AllocationRequest{RmID: "load", Allocations: make([]*si.Allocation, 0, n)}
		for range n {
			q := "a"
			if next%2 == 1 {
				q = "b"
			}
			req.Allocations = append(req.Allocations, &si.Allocation{AllocationKey: q + strconv.Itoa(next), ApplicationID: "app-" + q,
				PartitionName: "default", ResourcePerAlloc: res(100, 64<<20)})
			next++
		}
		return req
	}
	var out LoadResult
	var wg sync.WaitGroup
	wg.Add(1)
	rmErr := make(chan error, 1)
	go func() {
		defer wg.Done()
		if err := c.UpdateAllocation(newAsks(o.Outstanding)); err != nil {
			rmErr <- err
			return
		}
		for {
			select {
			case <-stop:
				return
			case keys := <-rm.allocs:
				rel := &si.AllocationReleasesRequest{}
				for _, k := range keys {
					rel.AllocationsToRelease = append(rel.AllocationsToRelease, &si.AllocationRelease{PartitionName: "default", ApplicationID: "app-" + k[:1], AllocationKey: k})
				}
				req := newAsks(len(keys))
				req.Releases = rel
				if err := c.UpdateAllocation(req); err != nil {
					rmErr <- err
					return
				}
			}
		}
	}()

	// warm-up: the first allocations are back before the clock starts
	if err := waitUntil(ctx, func() bool { return rm.counted.Load() > 0 }); err != nil {
		close(stop)
		wg.Wait()
		return out, fmt.Errorf("load: no allocation: %w", err)
	}

	// the readers
	var requests, errs atomic.Uint64
	var firstErr atomic.Value
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConns: o.Readers + 10, MaxIdleConnsPerHost: o.Readers + 10}}
	for i := range o.Readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for k := 0; ; k++ {
				if o.Interval > 0 {
					select {
					case <-stop:
						return
					case <-time.After(o.Interval/2 + time.Duration(rng.Int64N(int64(o.Interval)))):
					}
				}
				select {
				case <-stop:
					return
				default:
				}
				path := o.Paths[(i+k)%len(o.Paths)]
				resp, err := hc.Get("http://" + s.RESTAddr() + path)
				requests.Add(1)
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("GET %s: %d %v", path, resp.StatusCode, err))
				}
			}
		}()
	}

	start := time.Now()
	base := rm.counted.Load()
	select {
	case <-time.After(o.Duration):
	case err := <-rmErr:
		close(stop)
		wg.Wait()
		return out, fmt.Errorf("load: RM: %w", err)
	}
	if o.MinAllocations > 0 {
		_ = waitUntil(ctx, func() bool { return rm.counted.Load()-base >= o.MinAllocations })
	}
	out.Allocations = rm.counted.Load() - base
	out.Elapsed = time.Since(start)
	close(stop)
	wg.Wait()
	out.Requests, out.Errors = requests.Load(), errs.Load()
	if v, ok := firstErr.Load().(string); ok {
		out.FirstError = v
	}
	return out, nil
}

func waitUntil(ctx context.Context, cond func() bool) error {
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}
