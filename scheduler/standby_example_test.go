package scheduler_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"

	"github.com/paddock-sched/paddock/scheduler"
)

// A standby takes in a node, an application and an ask, and places
// nothing; activated, it places the ask at once, with no new input.
func ExampleScheduler_Activate() {
	s, err := scheduler.Start(scheduler.Options{Standby: true, LogHandler: slog.NewTextHandler(io.Discard, nil)})
	if err != nil {
		panic(err)
	}
	defer s.Stop()
	r := &rm{allocated: make(chan *si.Allocation, 1)}
	sched := s.API()
	if _, err := sched.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm"}, r); err != nil {
		panic(err)
	}
	_ = sched.UpdateNode(&si.NodeRequest{RmID: "rm", Nodes: []*si.NodeInfo{
		{NodeID: "node-1", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)},
	}})
	_ = sched.UpdateApplication(&si.ApplicationRequest{RmID: "rm", New: []*si.AddApplicationRequest{
		{ApplicationID: "app-1", PartitionName: "default", Tags: map[string]string{"namespace": "team-a"},
			Ugi: &si.UserGroupInformation{User: "alice"}},
	}})
	_ = sched.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Allocations: []*si.Allocation{
		{AllocationKey: "pod-1", ApplicationID: "app-1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)},
	}})
	// the updates are applied in order, soon: wait until the view shows
	// the ask, pending
	fmt.Println("standby:", s.Standby(), "app-1 asks pending:", pendingAsks(s, "app-1", 1))
	if err := s.Activate(); err != nil {
		panic(err)
	}
	a := <-r.allocated
	fmt.Println("standby:", s.Standby(), a.AllocationKey, "on", a.NodeID)
	// Output:
	// standby: true app-1 asks pending: 1
	// standby: false pod-1 on node-1
}

// pendingAsks waits (up to 10 s) until application id has want asks
// pending in s's view, and returns how many it has.
func pendingAsks(s *scheduler.Scheduler, id string, want int) int {
	n := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		v, err := s.View(context.Background())
		if err != nil {
			panic(err)
		}
		if a := v.Partition("default").App(id); a != nil {
			if n = len(a.Asks); n == want {
				break
			}
		}
	}
	return n
}
