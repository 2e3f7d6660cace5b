package scheduler_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"

	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/scheduler"
)

// rm is a resource manager's side of the SI: it hears about allocations.
type rm struct {
	callback.Nop
	allocated chan *si.Allocation
}

func (r *rm) UpdateAllocation(resp *si.AllocationResponse) error {
	for _, a := range resp.New {
		r.allocated <- a
	}
	return nil
}

func res(vcore, memory int64) *si.Resource {
	return &si.Resource{Resources: map[string]*si.Quantity{
		common.CPU: {Value: vcore}, common.Memory: {Value: memory},
	}}
}

// An RM registers, reports a node, submits an application with one ask
// and receives the allocation; the view shows it on the node.
func Example() {
	s, err := scheduler.Start(scheduler.Options{LogHandler: slog.NewTextHandler(io.Discard, nil)})
	if err != nil {
		panic(err)
	}
	defer s.Stop()
	sched := s.API()

	r := &rm{allocated: make(chan *si.Allocation, 1)}
	if _, err := sched.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "my-rm", PolicyGroup: "queues"}, r); err != nil {
		panic(err)
	}
	must(sched.UpdateNode(&si.NodeRequest{RmID: "my-rm", Nodes: []*si.NodeInfo{{
		NodeID: "node-1", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30),
		Attributes: map[string]string{common.NodePartition: "default"},
	}}}))
	must(sched.UpdateApplication(&si.ApplicationRequest{RmID: "my-rm", New: []*si.AddApplicationRequest{{
		// the default configuration places an application in the queue
		// named by its namespace tag, root.<namespace>, created on demand
		ApplicationID: "app-1", PartitionName: "default", Tags: map[string]string{"namespace": "team-a"},
		Ugi: &si.UserGroupInformation{User: "alice"},
	}}}))
	must(sched.UpdateAllocation(&si.AllocationRequest{RmID: "my-rm", Allocations: []*si.Allocation{{
		AllocationKey: "pod-1", ApplicationID: "app-1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30),
	}}}))

	select {
	case a := <-r.allocated:
		fmt.Println("allocated", a.AllocationKey, "on", a.NodeID)
	case <-time.After(10 * time.Second):
		fmt.Println("no allocation")
		return
	}

	v, err := s.View(context.Background())
	if err != nil {
		panic(err)
	}
	n := v.Partition("default").Node("node-1")
	fmt.Println("node-1 allocated vcore:", n.Allocated[common.CPU], "available vcore:", n.Available[common.CPU])
	fmt.Println("app-1 in", v.Partition("default").App("app-1").Queue)
	// Output:
	// allocated pod-1 on node-1
	// node-1 allocated vcore: 1000 available vcore: 3000
	// app-1 in root.team-a
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
