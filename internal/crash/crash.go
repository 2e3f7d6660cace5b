// Package crash kills a scheduler at scale and restarts it (issue #18):
// it starts `paddock serve` as a child process, a remote RM (package
// client) registers nodes and gets allocations and leaves asks pending
// that fit no node, the server is killed with SIGKILL and started again
// on the same addresses, and the RM registers again and resyncs what it
// holds (its nodes, its applications, every allocation on its node, its
// pending asks) and asks for more. It measures the time from the restart
// to the first new scheduling decision, and checks through REST that
// nothing was lost or doubled: every allocation once, on the node the RM
// has it on, node sums equal to what the RM holds, the pending asks
// pending. `paddock-harness crash` is the command.
package crash

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/client"
)

// Options configure a run. Zero values mean the defaults given.
type Options struct {
	// Command is the paddock binary and any arguments before "serve"; Env
	// is added to the child's environment.
	Command, Env []string
	// Nodes (10,000, 32 cores each), Allocations (200,000, 1 core each),
	// Apps (100) that hold them, Pending asks (2,000, 64 cores each: they
	// fit no node) and NewAsks (100) sent after the resync.
	Nodes, Allocations, Apps, Pending, NewAsks int
	// Progress, when set, gets a line per phase.
	Progress io.Writer
	// Profile, when set, gets a CPU profile of the restarted server's
	// first ProfileFor (20 s), taken over REST (/debug/pprof/profile).
	Profile    io.Writer
	ProfileFor time.Duration
	// Forget, for tests, is how many allocations the RM leaves out of its
	// resync while still holding them: the checks must find them lost.
	Forget int
}

func (o *Options) defaults() {
	def := func(n *int, v int) {
		if *n <= 0 {
			*n = v
		}
	}
	def(&o.Nodes, 10_000)
	def(&o.Allocations, 200_000)
	def(&o.Apps, 100)
	def(&o.Pending, 2_000)
	def(&o.NewAsks, 100)
}

// Result is what a run measured and found.
type Result struct {
	Nodes, Allocations, Pending, NewAsks int
	// Fill is the time to build the state before the kill.
	Fill time.Duration
	// From the start of the new process: Serving, when it served;
	// Registered, when the RM had registered again; Accepted, when its
	// nodes and applications were accepted again; Resynced, when it had
	// sent its allocations and asks; FirstDecision, when the first new ask
	// was allocated.
	Serving, Registered, Accepted, Resynced, FirstDecision time.Duration
	// ServerCPU is the CPU time the restarted server used up to the first
	// new decision, RMCPU the CPU time this process (the RM) used in the
	// same time: on a loaded machine the wall times above stretch, these
	// much less.
	ServerCPU, RMCPU time.Duration
	// Recovered is the number of allocations the restarted server shows.
	Recovered int
	// Problems are what the checks found: lost, doubled or moved
	// allocations, node sums or pending asks that differ.
	Problems []string
}

func (r Result) String() string {
	return fmt.Sprintf("%d nodes, %d allocations, %d pending asks (state built in %v); after SIGKILL and restart: serving %v, registered %v, nodes and apps accepted %v, allocations and asks resynced %v, first new decision %v (CPU until then: server %v, RM %v); %d allocations recovered, %d problems",
		r.Nodes, r.Allocations, r.Pending, r.Fill.Round(time.Millisecond), r.Serving.Round(time.Millisecond), r.Registered.Round(time.Millisecond),
		r.Accepted.Round(time.Millisecond), r.Resynced.Round(time.Millisecond), r.FirstDecision.Round(time.Millisecond),
		r.ServerCPU, r.RMCPU.Round(10*time.Millisecond), r.Recovered, len(r.Problems))
}

const rmID = "crash"

const config = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: big
          - name: fresh
`

func res(vcore, mem int64) *si.Resource {
	return &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: vcore}, "memory": {Value: mem}}}
}

// the RM's state
type rm struct {
	callback.Nop
	mu       sync.Mutex
	nodes    map[string]bool
	apps     map[string]bool
	allocs   map[string]string // key -> node
	reported map[string]int    // allocations reported New, per key, in this registration
	moved    []string          // confirmations on another node than the RM's
	first    chan struct{}     // closed at the first new ask's allocation
	once     sync.Once
	changed  chan struct{}
}

func newRM() *rm {
	return &rm{nodes: map[string]bool{}, apps: map[string]bool{}, allocs: map[string]string{}, reported: map[string]int{},
		first: make(chan struct{}), changed: make(chan struct{}, 1)}
}

func (r *rm) poke() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *rm) UpdateAllocation(resp *si.AllocationResponse) error {
	r.mu.Lock()
	for _, a := range resp.New {
		r.reported[a.AllocationKey]++
		if n, had := r.allocs[a.AllocationKey]; !had {
			r.allocs[a.AllocationKey] = a.NodeID
		} else if n != a.NodeID {
			r.moved = append(r.moved, fmt.Sprintf("allocation %s confirmed on %s, the RM has it on %s", a.AllocationKey, a.NodeID, n))
		}
		if strings.HasPrefix(a.AllocationKey, "new-") {
			r.once.Do(func() { close(r.first) })
		}
	}
	r.mu.Unlock()
	r.poke()
	return nil
}

func (r *rm) UpdateApplication(resp *si.ApplicationResponse) error {
	r.mu.Lock()
	for _, a := range resp.Accepted {
		r.apps[a.ApplicationID] = true
	}
	r.mu.Unlock()
	r.poke()
	return nil
}

func (r *rm) UpdateNode(resp *si.NodeResponse) error {
	r.mu.Lock()
	for _, n := range resp.Accepted {
		r.nodes[n.NodeID] = true
	}
	r.mu.Unlock()
	r.poke()
	return nil
}

// waitFor waits until cond holds (checked under the lock at each change).
func (r *rm) waitFor(timeout time.Duration, what string, cond func() bool) error {
	deadline := time.After(timeout)
	for {
		r.mu.Lock()
		ok := cond()
		r.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-r.changed:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			return fmt.Errorf("%s: not within %v", what, timeout)
		}
	}
}

func nodeID(i int) string { return fmt.Sprintf("node-%05d", i) }
func appID(i int) string  { return fmt.Sprintf("app-%03d", i) }

// Run runs the scenario.
func Run(ctx context.Context, o Options) (Result, error) {
	o.defaults()
	out := Result{Nodes: o.Nodes, Allocations: o.Allocations, Pending: o.Pending, NewAsks: o.NewAsks}
	say := func(format string, args ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, format+"\n", args...)
		}
	}
	restAddr, err := freeAddr()
	if err != nil {
		return out, err
	}
	grpcAddr, err := freeAddr()
	if err != nil {
		return out, err
	}
	first, err := startChild(o.Command, o.Env, restAddr, grpcAddr)
	if err != nil {
		return out, err
	}
	defer first.kill(syscall.SIGKILL)
	if err := first.waitServing(time.Minute); err != nil {
		return out, err
	}

	// the state before the crash
	begin := time.Now()
	r := newRM()
	c, err := dial(ctx, grpcAddr)
	if err != nil {
		return out, err
	}
	if err := register(ctx, c, r); err != nil {
		c.Close()
		return out, err
	}
	if err := sendNodesAndApps(c, r, o); err != nil {
		c.Close()
		return out, err
	}
	if err := sendAsks(c, "app", o.Allocations, o.Apps, 1000, "a-"); err != nil {
		c.Close()
		return out, err
	}
	if err := r.waitFor(30*time.Minute, "allocations before the crash", func() bool { return len(r.allocs) == o.Allocations }); err != nil {
		c.Close()
		return out, err
	}
	if err := sendAsks(c, "pending", o.Pending, 1, 64000, "p-"); err != nil {
		c.Close()
		return out, err
	}
	out.Fill = time.Since(begin)
	say("state built in %v: %d nodes, %d allocations, %d pending asks", out.Fill.Round(time.Millisecond), o.Nodes, o.Allocations, o.Pending)
	r.mu.Lock()
	held := make(map[string]string, len(r.allocs))
	for k, n := range r.allocs {
		held[k] = n
	}
	r.mu.Unlock()

	// SIGKILL and restart on the same addresses
	first.kill(syscall.SIGKILL)
	c.Close()
	say("killed (SIGKILL): %v", first.err)
	restart, rmCPU := time.Now(), selfCPU()
	second, err := startChild(o.Command, o.Env, restAddr, grpcAddr)
	if err != nil {
		return out, err
	}
	defer second.kill(syscall.SIGTERM)
	if err := second.waitServing(time.Minute); err != nil {
		return out, err
	}
	out.Serving = time.Since(restart)
	profiled := make(chan error, 1)
	if o.Profile != nil {
		go func() { profiled <- profile(ctx, "http://"+restAddr, o.Profile, o.ProfileFor) }()
	} else {
		profiled <- nil
	}

	// the RM registers again and resyncs
	r2 := newRM()
	for k, n := range held {
		r2.allocs[k] = n
	}
	c2, err := dial(ctx, grpcAddr)
	if err != nil {
		return out, err
	}
	defer c2.Close()
	if err := register(ctx, c2, r2); err != nil {
		return out, err
	}
	out.Registered = time.Since(restart)
	if err := sendNodesAndApps(c2, r2, o); err != nil {
		return out, err
	}
	out.Accepted = time.Since(restart)
	resync := held
	if o.Forget > 0 {
		resync = make(map[string]string, len(held))
		for k, n := range held {
			resync[k] = n
		}
		keys := slices.Sorted(maps.Keys(resync))
		for _, k := range keys[:min(o.Forget, len(keys))] {
			delete(resync, k)
		}
	}
	if err := sendHeld(c2, resync, o.Apps); err != nil {
		return out, err
	}
	if err := sendAsks(c2, "pending", o.Pending, 1, 64000, "p-"); err != nil {
		return out, err
	}
	out.Resynced = time.Since(restart)
	if err := sendAsks(c2, "fresh", o.NewAsks, 1, 1000, "new-"); err != nil {
		return out, err
	}
	select {
	case <-r2.first:
		out.FirstDecision = time.Since(restart)
		out.ServerCPU, out.RMCPU = second.cpu(), selfCPU()-rmCPU
	case <-time.After(5 * time.Minute):
		return out, fmt.Errorf("no new ask allocated within 5 minutes of the restart")
	}
	if err := r2.waitFor(5*time.Minute, "the new asks", func() bool { return len(r2.allocs) == o.Allocations+o.NewAsks }); err != nil {
		return out, err
	}
	r2.mu.Lock()
	// each resynced allocation is confirmed once, as new (reference
	// behaviour), on its node; each new ask allocated once; no pending
	// ask (they fit no node)
	var odd []string
	for k, n := range r2.reported {
		switch {
		case n > 1:
			odd = append(odd, fmt.Sprintf("allocation %s reported %d times after the restart", k, n))
		case strings.HasPrefix(k, "p-"):
			odd = append(odd, fmt.Sprintf("ask %s allocated: it fits no node", k))
		}
	}
	if len(r2.reported) != len(resync)+o.NewAsks {
		odd = append(odd, fmt.Sprintf("%d allocations confirmed or made after the restart, want %d resynced and %d new", len(r2.reported), len(resync), o.NewAsks))
	}
	odd = append(odd, r2.moved...)
	sort.Strings(odd)
	out.Problems = append(out.Problems, firstOf(odd, 20)...)
	want := make(map[string]string, len(r2.allocs))
	for k, n := range r2.allocs {
		want[k] = n
	}
	r2.mu.Unlock()
	if err := <-profiled; err != nil {
		return out, fmt.Errorf("profile: %w", err)
	}
	rec, problems, err := audit(ctx, "http://"+restAddr, want, o)
	out.Recovered = rec
	out.Problems = append(out.Problems, problems...)
	return out, err
}

func dial(ctx context.Context, addr string) (*client.Client, error) {
	dctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return client.Dial(dctx, addr, client.Options{CallTimeout: time.Minute})
}

func register(ctx context.Context, c *client.Client, r *rm) error {
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return c.Register(rctx, &si.RegisterResourceManagerRequest{RmID: rmID, PolicyGroup: "queues", Config: config}, r)
}

// sendNodesAndApps sends the nodes (1,000 a message) and applications and
// waits until all are accepted.
func sendNodesAndApps(c *client.Client, r *rm, o Options) error {
	for lo := 0; lo < o.Nodes; lo += 1000 {
		req := &si.NodeRequest{RmID: rmID}
		for i := lo; i < min(lo+1000, o.Nodes); i++ {
			req.Nodes = append(req.Nodes, &si.NodeInfo{NodeID: nodeID(i), Action: si.NodeInfo_CREATE, SchedulableResource: res(32000, 128<<30)})
		}
		if err := c.UpdateNode(req); err != nil {
			return err
		}
	}
	req := &si.ApplicationRequest{RmID: rmID}
	add := func(id, queue string) {
		req.New = append(req.New, &si.AddApplicationRequest{ApplicationID: id, QueueName: queue, PartitionName: "default", Ugi: &si.UserGroupInformation{User: "crash"}})
	}
	for i := range o.Apps {
		add(appID(i), "root.big")
	}
	add("pending", "root.big")
	add("fresh", "root.fresh")
	if err := c.UpdateApplication(req); err != nil {
		return err
	}
	return r.waitFor(5*time.Minute, "nodes and applications accepted", func() bool { return len(r.nodes) == o.Nodes && len(r.apps) == o.Apps+2 })
}

// sendAsks sends n asks of vcore millicores (and 1 GiB), keys prefix and
// a number, spread over apps applications (app "app" means app-000...,
// otherwise the one named), 10,000 a message.
func sendAsks(c *client.Client, app string, n, apps int, vcore int64, prefix string) error {
	for lo := 0; lo < n; lo += 10_000 {
		req := &si.AllocationRequest{RmID: rmID}
		for i := lo; i < min(lo+10_000, n); i++ {
			a := app
			if app == "app" {
				a = appID(i % apps)
			}
			req.Allocations = append(req.Allocations, &si.Allocation{AllocationKey: fmt.Sprintf("%s%06d", prefix, i), ApplicationID: a,
				PartitionName: "default", ResourcePerAlloc: res(vcore, 1<<30)})
		}
		if err := c.UpdateAllocation(req); err != nil {
			return err
		}
	}
	return nil
}

// sendHeld resyncs the allocations the RM holds, each on its node, 10,000
// a message.
func sendHeld(c *client.Client, held map[string]string, apps int) error {
	req := &si.AllocationRequest{RmID: rmID}
	flush := func() error {
		if len(req.Allocations) == 0 {
			return nil
		}
		err := c.UpdateAllocation(req)
		req = &si.AllocationRequest{RmID: rmID}
		return err
	}
	for k, n := range held {
		var i int
		fmt.Sscanf(k, "a-%d", &i)
		req.Allocations = append(req.Allocations, &si.Allocation{AllocationKey: k, ApplicationID: appID(i % apps), NodeID: n,
			PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)})
		if len(req.Allocations) == 10_000 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// firstOf is the first n lines, and a count of the others.
func firstOf(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	return append(lines[:n:n], fmt.Sprintf("(and %d more)", len(lines)-n))
}

// selfCPU is the CPU time (user and system) this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// profile copies a CPU profile of d from the server at base to w.
func profile(ctx context.Context, base string, w io.Writer, d time.Duration) error {
	if d <= 0 {
		d = 20 * time.Second
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, int(d.Seconds())), nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Timeout: d + time.Minute}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s", resp.Status)
	}
	_, err = io.Copy(w, resp.Body)
	return err
}
