package client_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"

	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/client"
	"github.com/paddock-sched/paddock/scheduler"
)

// rm records what the scheduler says; callbacks arrive on three streams at
// once, so it locks.
type rm struct {
	callback.Nop
	mu        sync.Mutex
	apps      map[string]bool
	allocated chan *si.Allocation
}

func (r *rm) UpdateApplication(resp *si.ApplicationResponse) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range resp.Accepted {
		r.apps[a.ApplicationID] = true
	}
	return nil
}

func (r *rm) accepted(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.apps[id]
}

func (r *rm) UpdateAllocation(resp *si.AllocationResponse) error {
	for _, a := range resp.New {
		r.allocated <- a
	}
	return nil
}

func res(vcore, memory int64) *si.Resource {
	return &si.Resource{Resources: map[string]*si.Quantity{common.CPU: {Value: vcore}, common.Memory: {Value: memory}}}
}

// A remote RM dials a Paddock's gRPC SI (here one started in-process on a
// loopback port; normally `paddock serve`), registers, and is then written
// exactly like an in-process RM. The three SI streams are independent, so
// it waits for the application to be accepted before sending its asks.
func Example() {
	s, err := scheduler.Start(scheduler.Options{GRPCAddr: "127.0.0.1:0", LogHandler: slog.NewTextHandler(io.Discard, nil)})
	if err != nil {
		panic(err)
	}
	defer s.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, s.GRPCAddr(), client.Options{CallTimeout: 5 * time.Second})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	r := &rm{apps: map[string]bool{}, allocated: make(chan *si.Allocation, 1)}
	if err := c.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "remote-rm", PolicyGroup: "queues"}, r); err != nil {
		panic(err)
	}
	must(c.UpdateNode(&si.NodeRequest{RmID: "remote-rm", Nodes: []*si.NodeInfo{{
		NodeID: "node-1", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30),
		Attributes: map[string]string{common.NodePartition: "default"},
	}}}))
	must(c.UpdateApplication(&si.ApplicationRequest{RmID: "remote-rm", New: []*si.AddApplicationRequest{{
		ApplicationID: "app-1", PartitionName: "default", Tags: map[string]string{"namespace": "team-a"},
		Ugi: &si.UserGroupInformation{User: "alice"},
	}}}))
	for !r.accepted("app-1") {
		select {
		case <-ctx.Done():
			fmt.Println("app-1 not accepted")
			return
		case <-time.After(time.Millisecond):
		}
	}
	must(c.UpdateAllocation(&si.AllocationRequest{RmID: "remote-rm", Allocations: []*si.Allocation{{
		AllocationKey: "pod-1", ApplicationID: "app-1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30),
	}}}))
	select {
	case a := <-r.allocated:
		fmt.Println("allocated", a.AllocationKey, "on", a.NodeID)
	case <-ctx.Done():
		fmt.Println("no allocation")
	}
	// Output:
	// allocated pod-1 on node-1
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
