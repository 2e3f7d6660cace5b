package soak

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/client"
)

const mainRM = "soak"

func res(vcore, mem int64) *si.Resource {
	return &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: vcore}, "memory": {Value: mem}}}
}

func nodeID(i int) string { return fmt.Sprintf("node-%03d", i) }
func appID(i int) string  { return fmt.Sprintf("app-%02d", i) }

// appOf is the application of an ask key "<app>/<n>".
func appOf(key string) string {
	a, _, _ := strings.Cut(key, "/")
	return a
}

// inbox is the main RM's callback: what the scheduler said, for the loop
// to take. Responses arrive on three goroutines.
type inbox struct {
	callback.Nop
	c        *counters
	mu       sync.Mutex
	newKeys  []string // allocated
	gone     []string // released or rejected by the scheduler
	accepted map[string]bool
	nodes    map[string]bool
}

func (b *inbox) UpdateAllocation(resp *si.AllocationResponse) error {
	b.c.allocations.Add(int64(len(resp.New)))
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range resp.New {
		b.newKeys = append(b.newKeys, a.AllocationKey)
	}
	for _, r := range resp.Released {
		b.gone = append(b.gone, r.AllocationKey)
	}
	for _, r := range resp.RejectedAllocations {
		b.gone = append(b.gone, r.AllocationKey)
	}
	return nil
}

func (b *inbox) UpdateApplication(resp *si.ApplicationResponse) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range resp.Accepted {
		b.accepted[a.ApplicationID] = true
	}
	for _, a := range resp.Rejected {
		b.c.fail("application %s rejected: %s", a.ApplicationID, a.Reason)
	}
	return nil
}

func (b *inbox) UpdateNode(resp *si.NodeResponse) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range resp.Accepted {
		b.nodes[n.NodeID] = true
	}
	for _, n := range resp.Rejected {
		b.c.fail("node %s rejected: %s", n.NodeID, n.Reason)
	}
	return nil
}

// take empties the inbox.
func (b *inbox) take() (newKeys, gone []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	newKeys, gone = b.newKeys, b.gone
	b.newKeys, b.gone = nil, nil
	return newKeys, gone
}

func (b *inbox) isAccepted(app string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.accepted[app]
}

// mainLoad is the main RM: only its loop goroutine touches the fields
// below in.
type mainLoad struct {
	client *client.Client
	in     *inbox
	o      Options
	c      *counters

	pending map[string]map[string]bool // app -> asks not yet allocated
	running map[string]string          // allocation key -> app
	next    int                        // ask counter
	churns  int
	down    int // the decommissioned node, -1 when none
	reloads int
}

// startMain registers the main RM with its nodes and applications and
// waits until they are accepted.
func startMain(ctx context.Context, addr string, o Options, c *counters) (*mainLoad, error) {
	cl, err := dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	in := &inbox{c: c, accepted: map[string]bool{}, nodes: map[string]bool{}}
	if err := cl.Register(ctx, &si.RegisterResourceManagerRequest{RmID: mainRM}, in); err != nil {
		cl.Close()
		return nil, err
	}
	m := &mainLoad{client: cl, in: in, o: o, c: c, pending: map[string]map[string]bool{}, running: map[string]string{}, down: -1}
	req := &si.NodeRequest{RmID: mainRM}
	for i := range o.Nodes {
		req.Nodes = append(req.Nodes, m.node(i, si.NodeInfo_CREATE))
	}
	if err := cl.UpdateNode(req); err != nil {
		cl.Close()
		return nil, err
	}
	for i := range o.Apps {
		if err := cl.UpdateApplication(m.addApp(i)); err != nil {
			cl.Close()
			return nil, err
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		in.mu.Lock()
		ready := len(in.nodes) == o.Nodes && len(in.accepted) == o.Apps
		in.mu.Unlock()
		if ready {
			return m, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			cl.Close()
			return nil, fmt.Errorf("soak: the RM's nodes and applications were not accepted within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (m *mainLoad) node(i int, action si.NodeInfo_ActionFromRM) *si.NodeInfo {
	n := &si.NodeInfo{NodeID: nodeID(i), Action: action}
	if action == si.NodeInfo_CREATE {
		n.SchedulableResource = res(4000, 8<<30)
	}
	return n
}

// addApp is the request adding application i; it starts with no asks.
func (m *mainLoad) addApp(i int) *si.ApplicationRequest {
	id := appID(i)
	m.pending[id] = map[string]bool{}
	q := "root.a"
	if i%2 == 1 {
		q = "root.b"
	}
	return &si.ApplicationRequest{RmID: mainRM, New: []*si.AddApplicationRequest{{
		ApplicationID: id, QueueName: q, PartitionName: "default", Ugi: &si.UserGroupInformation{User: fmt.Sprint("user-", i%4)}}}}
}

// loop runs the main RM until ctx ends.
func (m *mainLoad) loop(ctx context.Context) {
	tick := time.NewTicker(m.o.Tick)
	defer tick.Stop()
	lastChurn, lastReload := time.Now(), time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := m.step(); err != nil {
			if ctx.Err() == nil {
				m.c.fail("main RM: %v", err)
			}
			return
		}
		if time.Since(lastChurn) >= m.o.ChurnEvery {
			lastChurn = time.Now()
			if err := m.churn(); err != nil {
				if ctx.Err() == nil {
					m.c.fail("main RM churn: %v", err)
				}
				return
			}
		}
		if time.Since(lastReload) >= m.o.ReloadEvery {
			lastReload = time.Now()
			m.reloads++
			err := m.client.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: mainRM, Config: configs[m.reloads%2]})
			if err != nil && ctx.Err() == nil {
				m.c.fail("reload: %v", err)
			}
		}
	}
}

// step releases every allocation and asks again up to Outstanding.
func (m *mainLoad) step() error {
	newKeys, gone := m.in.take()
	for _, k := range newKeys {
		a := appOf(k)
		if p := m.pending[a]; p[k] {
			delete(p, k)
			m.running[k] = a
		}
	}
	for _, k := range gone {
		delete(m.pending[appOf(k)], k)
		delete(m.running, k)
	}
	req := &si.AllocationRequest{RmID: mainRM}
	if len(m.running) > 0 {
		req.Releases = &si.AllocationReleasesRequest{}
		for k, a := range m.running {
			req.Releases.AllocationsToRelease = append(req.Releases.AllocationsToRelease, &si.AllocationRelease{
				PartitionName: "default", ApplicationID: a, AllocationKey: k, TerminationType: si.TerminationType_STOPPED_BY_RM})
			delete(m.running, k)
		}
	}
	waiting := 0
	for _, p := range m.pending {
		waiting += len(p)
	}
	for i := 0; waiting < m.o.Outstanding && i < 4*m.o.Apps; i++ {
		a := appID(m.next % m.o.Apps)
		m.next++
		if !m.in.isAccepted(a) {
			continue
		}
		k := a + "/" + fmt.Sprint(m.next)
		m.pending[a][k] = true
		waiting++
		req.Allocations = append(req.Allocations, &si.Allocation{AllocationKey: k, ApplicationID: a, PartitionName: "default", ResourcePerAlloc: res(100, 64<<20)})
	}
	if req.Releases == nil && len(req.Allocations) == 0 {
		return nil
	}
	m.o.Leak()
	return m.client.UpdateAllocation(req)
}

// churn removes an application of the second half of the pool and adds
// it again at once, decommissions a node and creates again the one
// decommissioned before.
func (m *mainLoad) churn() error {
	// the first half of the applications live for the whole soak, the
	// others are removed and added again in turn
	long := m.o.Apps / 2
	i := long + m.churns%(m.o.Apps-long)
	id := appID(i)
	m.in.mu.Lock()
	delete(m.in.accepted, id)
	m.in.mu.Unlock()
	for k, a := range m.running {
		if a == id {
			delete(m.running, k)
		}
	}
	if err := m.client.UpdateApplication(&si.ApplicationRequest{RmID: mainRM,
		Remove: []*si.RemoveApplicationRequest{{ApplicationID: id, PartitionName: "default"}}}); err != nil {
		return err
	}
	if err := m.client.UpdateApplication(m.addApp(i)); err != nil {
		return err
	}
	req := &si.NodeRequest{RmID: mainRM}
	if m.down >= 0 {
		req.Nodes = append(req.Nodes, m.node(m.down, si.NodeInfo_CREATE))
	}
	m.down = m.churns % m.o.Nodes
	req.Nodes = append(req.Nodes, m.node(m.down, si.NodeInfo_DECOMISSION))
	m.churns++
	return m.client.UpdateNode(req)
}

// sideRMs registers a short-lived second RM every SideEvery until ctx
// ends: it dials, registers one of three IDs, adds a node, an application
// and five asks, waits for them to be allocated and closes.
func sideRMs(ctx context.Context, addr string, o Options, c *counters) {
	tick := time.NewTicker(o.SideEvery)
	defer tick.Stop()
	for k := 0; ; k++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := side(ctx, addr, fmt.Sprint("side-", k%3)); err != nil && ctx.Err() == nil {
			c.fail("side RM: %v", err)
		}
	}
}

// allocCounter counts a side RM's allocations.
type allocCounter struct {
	callback.Nop
	mu       sync.Mutex
	allocs   int
	accepted bool
}

func (a *allocCounter) UpdateAllocation(resp *si.AllocationResponse) error {
	a.mu.Lock()
	a.allocs += len(resp.New)
	a.mu.Unlock()
	return nil
}

func (a *allocCounter) UpdateApplication(resp *si.ApplicationResponse) error {
	a.mu.Lock()
	a.accepted = a.accepted || len(resp.Accepted) > 0
	a.mu.Unlock()
	return nil
}

func (a *allocCounter) wait(ctx context.Context, cond func() bool) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		a.mu.Lock()
		ok := cond()
		a.mu.Unlock()
		switch {
		case ok:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case time.Now().After(deadline):
			return fmt.Errorf("not done within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func side(ctx context.Context, addr, rmID string) error {
	cl, err := dial(ctx, addr)
	if err != nil {
		return err
	}
	defer cl.Close()
	cb := &allocCounter{}
	if err := cl.Register(ctx, &si.RegisterResourceManagerRequest{RmID: rmID}, cb); err != nil {
		return err
	}
	if err := cl.UpdateNode(&si.NodeRequest{RmID: rmID, Nodes: []*si.NodeInfo{{NodeID: "side-node", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)}}}); err != nil {
		return err
	}
	if err := cl.UpdateApplication(&si.ApplicationRequest{RmID: rmID, New: []*si.AddApplicationRequest{{
		ApplicationID: "side-app", QueueName: "root.a", PartitionName: "default", Ugi: &si.UserGroupInformation{User: "side"}}}}); err != nil {
		return err
	}
	if err := cb.wait(ctx, func() bool { return cb.accepted }); err != nil {
		return fmt.Errorf("%s: application not accepted: %w", rmID, err)
	}
	req := &si.AllocationRequest{RmID: rmID}
	for j := range 5 {
		req.Allocations = append(req.Allocations, &si.Allocation{AllocationKey: fmt.Sprint("side-", j), ApplicationID: "side-app",
			PartitionName: "default", ResourcePerAlloc: res(100, 64<<20)})
	}
	if err := cl.UpdateAllocation(req); err != nil {
		return err
	}
	if err := cb.wait(ctx, func() bool { return cb.allocs == 5 }); err != nil {
		return fmt.Errorf("%s: 5 asks not allocated: %w", rmID, err)
	}
	return cl.Close()
}
