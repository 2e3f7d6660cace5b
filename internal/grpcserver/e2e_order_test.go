package grpcserver_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/client"
	"github.com/paddock-sched/paddock/internal/grpcserver"
)

// An RM that sends an application's asks before the application itself,
// on its other stream, sees them accepted and allocated, not rejected.
func TestAsksBeforeTheirApplication(t *testing.T) {
	_, srv, addr := stack(t, grpcserver.Options{ParkTimeout: time.Minute}) // the application comes, however loaded the machine
	c := dial(t, addr, client.Options{})
	rec := newRecorder()
	register(t, c, rec)
	must(t, c.UpdateNode(nodes(2)))
	rec.await(t, "nodes accepted", func() bool { return len(rec.accNodes) == 2 })

	must(t, c.UpdateAllocation(asks(0, 3)))
	// wait until the server has the asks: parked, or (without parking)
	// already rejected by the scheduler
	deadline := time.Now().Add(10 * time.Second)
	for {
		rec.mu.Lock()
		rejected := len(rec.rejAllocs) > 0
		rec.mu.Unlock()
		if rejected || rmState(srv).Parked == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("asks neither parked nor rejected")
		}
		time.Sleep(time.Millisecond)
	}
	must(t, c.UpdateApplication(app("app1", "root.a")))
	rec.await(t, "3 allocations", func() bool { return len(rec.allocs) == 3 || len(rec.rejAllocs) > 0 })
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.rejAllocs) > 0 {
		t.Fatalf("asks rejected: %v", rec.rejAllocs)
	}
	if n := rmState(srv).Parked; n != 0 {
		t.Fatalf("%d items still parked", n)
	}
}

// Applications and their asks sent at once on the two streams, many times
// over: every ask is allocated, none rejected.
func TestApplicationsAndAsksConcurrently(t *testing.T) {
	_, srv, addr := stack(t, grpcserver.Options{ParkTimeout: time.Minute}) // the application comes, however loaded the machine
	c := dial(t, addr, client.Options{})
	rec := newRecorder()
	register(t, c, rec)
	must(t, c.UpdateNode(nodes(4)))
	rec.await(t, "nodes accepted", func() bool { return len(rec.accNodes) == 4 })
	const apps = 20
	var wg sync.WaitGroup
	for i := range apps {
		id := fmt.Sprint("app", i)
		a := app(id, "root.a")
		x := &si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{{
			AllocationKey: id + "-ask", ApplicationID: id, ResourcePerAlloc: res(100, 1<<20)}}}
		wg.Add(2)
		send := func(f func() error) {
			defer wg.Done()
			if err := f(); err != nil {
				t.Error(err)
			}
		}
		go send(func() error { return c.UpdateAllocation(x) })
		go send(func() error { return c.UpdateApplication(a) })
	}
	wg.Wait()
	rec.await(t, "every ask allocated", func() bool { return len(rec.allocs) == apps || len(rec.rejAllocs) > 0 })
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.rejAllocs) > 0 {
		t.Fatalf("asks rejected: %v", rec.rejAllocs)
	}
	if n := rmState(srv).Parked; n != 0 {
		t.Fatalf("%d items still parked", n)
	}
}
