package serve

import (
	"sync"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
)

// recorder is a remote RM's callback that keeps what it was told;
// responses arrive on three goroutines. The load run and the tests use it.
type recorder struct {
	callback.Nop // predicates pass; events are dropped
	mu           sync.Mutex
	allocs       map[string]*si.Allocation
	accApps      map[string]bool
	accNodes     map[string]bool
	changed      chan struct{}
}

func newRecorder() *recorder {
	return &recorder{allocs: map[string]*si.Allocation{}, accApps: map[string]bool{}, accNodes: map[string]bool{}, changed: make(chan struct{}, 1)}
}

var _ api.ResourceManagerCallback = (*recorder)(nil)

func (r *recorder) poke() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) UpdateAllocation(resp *si.AllocationResponse) error {
	r.mu.Lock()
	for _, a := range resp.New {
		r.allocs[a.AllocationKey] = a
	}
	r.mu.Unlock()
	r.poke()
	return nil
}

func (r *recorder) UpdateApplication(resp *si.ApplicationResponse) error {
	r.mu.Lock()
	for _, a := range resp.Accepted {
		r.accApps[a.ApplicationID] = true
	}
	r.mu.Unlock()
	r.poke()
	return nil
}

func (r *recorder) UpdateNode(resp *si.NodeResponse) error {
	r.mu.Lock()
	for _, n := range resp.Accepted {
		r.accNodes[n.NodeID] = true
	}
	r.mu.Unlock()
	r.poke()
	return nil
}

// Request builders of the load run and the tests: nodes of 4 cores and
// 8 GiB, an application of user alice, asks of 1 core and 1 GiB.

func res(vcore, mem int64) *si.Resource {
	return &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: vcore}, "memory": {Value: mem}}}
}

func nodes(rmID string, ids ...string) *si.NodeRequest {
	req := &si.NodeRequest{RmID: rmID}
	for _, id := range ids {
		req.Nodes = append(req.Nodes, &si.NodeInfo{NodeID: id, Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)})
	}
	return req
}

func app(rmID, id, queue string) *si.ApplicationRequest {
	return &si.ApplicationRequest{RmID: rmID, New: []*si.AddApplicationRequest{{
		ApplicationID: id, QueueName: queue, PartitionName: "default", Ugi: &si.UserGroupInformation{User: "alice"}}}}
}

func asks(rmID, appID string, keys ...string) *si.AllocationRequest {
	req := &si.AllocationRequest{RmID: rmID}
	for _, k := range keys {
		req.Allocations = append(req.Allocations, &si.Allocation{AllocationKey: k, ApplicationID: appID, PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)})
	}
	return req
}
