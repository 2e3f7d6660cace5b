package main

import (
	"time"

	"github.com/apache/yunikorn-k8shim/pkg/cache"
)

// inFlight counts the shim's binds in flight: tasks the core allocated
// whose bind call has not returned yet (the shim's Allocated state; a
// bind that succeeds moves its task to Bound, one that fails for good
// rolls it back to Scheduling).
func inFlight(ctx *cache.Context) func() int {
	return func() int {
		n := 0
		for _, app := range ctx.GetAllApplications() {
			n += len(app.GetAllocatedTasks())
		}
		return n
	}
}

// drain waits until binds reports none in flight on two looks in a row
// (a delivery the fenced core made just before may still be on its way
// into the shim's task states) or until max has passed; it tells how
// many were still in flight at the end (0 when drained).
//
// A leader stopping gracefully drains after its core is fenced and before
// it releases the Lease: a standby may take over at once after the
// release, and a bind of the old leader that lands after the new leader
// has placed the same pod is refused by the API server, leaving the new
// leader holding the pod on a node where it is not.
func drain(binds func() int, max, every time.Duration) int {
	deadline := time.Now().Add(max)
	clear := 0
	for {
		n := binds()
		if n == 0 {
			clear++
		} else {
			clear = 0
		}
		if clear == 2 || !time.Now().Before(deadline) {
			return n
		}
		time.Sleep(every)
	}
}
