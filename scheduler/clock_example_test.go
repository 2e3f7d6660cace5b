package scheduler_test

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"

	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/scheduler"
)

// gangRM is an RM that hears of allocations and of releases the
// scheduler decides.
type gangRM struct {
	callback.Nop
	allocated chan string
	released  chan string
}

func (r *gangRM) UpdateAllocation(resp *si.AllocationResponse) error {
	for _, a := range resp.New {
		r.allocated <- a.AllocationKey
	}
	for _, rel := range resp.Released {
		r.released <- rel.AllocationKey + " " + rel.TerminationType.String()
	}
	return nil
}

// collect takes n strings from ch, sorted (nil when they do not come).
func collect(ch chan string, n int) []string {
	var got []string
	for range n {
		select {
		case s := <-ch:
			got = append(got, s)
		case <-time.After(10 * time.Second):
			return nil
		}
	}
	slices.Sort(got)
	return got
}

// A test of an RM's gang scheduling against an in-process scheduler on
// virtual time: the gang's placeholders are allocated, its real pods never
// come, and one Step of the fake clock passes the ten-minute placeholder
// timeout, so the scheduler releases the placeholders at once rather than
// after ten minutes.
func ExampleFakeClock() {
	clk := scheduler.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s, err := scheduler.Start(scheduler.Options{Clock: clk, LogHandler: slog.NewTextHandler(io.Discard, nil)})
	if err != nil {
		panic(err)
	}
	defer s.Stop()
	sched := s.API()
	r := &gangRM{allocated: make(chan string, 2), released: make(chan string, 2)}
	if _, err := sched.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "my-rm", PolicyGroup: "queues"}, r); err != nil {
		panic(err)
	}
	must(sched.UpdateNode(&si.NodeRequest{RmID: "my-rm", Nodes: []*si.NodeInfo{{
		NodeID: "node-1", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30),
		Attributes: map[string]string{common.NodePartition: "default"},
	}}}))
	must(sched.UpdateApplication(&si.ApplicationRequest{RmID: "my-rm", New: []*si.AddApplicationRequest{{
		ApplicationID: "gang-1", PartitionName: "default", Tags: map[string]string{"namespace": "team-a"},
		Ugi:            &si.UserGroupInformation{User: "alice"},
		PlaceholderAsk: res(2000, 2<<30), ExecutionTimeoutMilliSeconds: (10 * time.Minute).Milliseconds(),
	}}}))
	var placeholders []*si.Allocation
	for _, key := range []string{"ph-1", "ph-2"} {
		placeholders = append(placeholders, &si.Allocation{AllocationKey: key, ApplicationID: "gang-1", PartitionName: "default",
			ResourcePerAlloc: res(1000, 1<<30), Placeholder: true, TaskGroupName: "workers"})
	}
	must(sched.UpdateAllocation(&si.AllocationRequest{RmID: "my-rm", Allocations: placeholders}))
	fmt.Println("allocated:", collect(r.allocated, 2))

	clk.Step(10 * time.Minute)
	fmt.Println("after ten minutes of fake time:", collect(r.released, 2))
	// Output:
	// allocated: [ph-1 ph-2]
	// after ten minutes of fake time: [ph-1 TIMEOUT ph-2 TIMEOUT]
}
