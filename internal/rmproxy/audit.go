package rmproxy

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/core/snapshot"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Audit checks the accounting of the current state, for tests and the
// hostile-RM driver (package hostile; both also run the consistency
// health check, which package health, importing this one in its tests,
// keeps to itself): no partition, node, queue or
// application total is negative or above resource.MaxQuantity; each
// node's availability is exactly capacity - allocated - occupied (it may
// be negative when the RM shrank the node or its foreign allocations
// exceed it); and the engine's Verify holds, except for the over-capacity of nodes the RM itself
// overcommitted. It returns what failed (nothing when all held) and the
// highest partition capacity or root total seen. err is for a service
// that did not answer.
func (s *Service) Audit(ctx context.Context) (problems []string, highest int64, err error) {
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return nil, 0, err
	}
	over := func(v resource.Vector, what string) {
		for i, x := range v {
			if x < 0 || x > resource.MaxQuantity {
				problems = append(problems, fmt.Sprintf("%s: type %d is %d", what, i, x))
			}
		}
	}
	for _, pt := range snap.Partitions {
		for _, v := range []resource.Vector{pt.Capacity, pt.Root.Allocated, pt.Root.Pending} {
			for _, x := range v {
				highest = max(highest, x)
			}
		}
		over(pt.Capacity, "partition "+pt.Name+" capacity")
		pt.EachQueue(func(q *snapshot.Queue) {
			over(q.Allocated, "queue "+q.Path+" allocated")
			over(q.Pending, "queue "+q.Path+" pending")
		})
		for _, n := range pt.Nodes {
			over(n.Capacity, "node "+n.ID+" capacity")
			over(n.Allocated, "node "+n.ID+" allocated")
			over(n.Occupied, "node "+n.ID+" occupied")
			for i := range n.Available {
				exact := new(big.Int).SetInt64(n.Capacity[i])
				exact.Sub(exact, big.NewInt(n.Allocated[i]))
				exact.Sub(exact, big.NewInt(n.Occupied[i]))
				if !exact.IsInt64() || exact.Int64() != n.Available[i] {
					problems = append(problems, fmt.Sprintf("node %s: type %d available %d, exactly %v", n.ID, i, n.Available[i], exact))
				}
			}
		}
		for _, a := range pt.Apps {
			over(a.Allocated, "app "+a.ID+" allocated")
			over(a.Pending, "app "+a.ID+" pending")
		}
	}
	err = s.Inspect(func(e *engine.Engine) {
		verr := e.Verify()
		if verr == nil {
			return
		}
		for _, line := range strings.Split(verr.Error(), "\n") {
			// an RM-made overcommit, checked exactly above
			if !strings.Contains(line, ": over capacity: ") {
				problems = append(problems, line)
			}
		}
	})
	return problems, highest, err
}
