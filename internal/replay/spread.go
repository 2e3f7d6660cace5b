package replay

import (
	"errors"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// The different-machines restriction.
//
// A 2011 task event carries the flag "different-machines restriction": "if
// true, the task must be scheduled to execute on a different machine than
// any other currently running task in the job" (Reiss, Wilkes and
// Hellerstein, "Google cluster-usage traces: format + schema", 2011,
// task events table). The replay's RM keeps it as a Kubernetes shim keeps a
// pod's anti-affinity: through the SI's Predicates callback, which the
// scheduler asks before it places an ask on a node that fits. A task with
// the flag is refused every node on which a task of its job runs; tasks
// without it are not checked. The scheduler tells the RM of its placements
// only at the end of a cycle (the replay's service is manual), so the RM
// also counts the nodes it allowed in the cycle under way: the scheduler
// places an ask on the first node that fits and the RM allows, and two
// tasks of one job placed in the same cycle see each other.
//
// The restriction is a constraint the trace records, not a fitted
// constant: 301 of part 3's 15,598 free tasks carry it. The 2019 trace has
// no such flag (its constraints are on machine attributes, which the
// replay's nodes do not have), so no 2019 task is checked.

// jobNode is a job on a node.
type jobNode struct {
	job  int64
	node string
}

// errSameMachine is a node refused by the different-machines restriction.
var errSameMachine = errors.New("different-machines restriction: a task of the job runs on this node")

// placeOn records that t runs on node.
func (s *sim) placeOn(t *task, node string) {
	t.node = node
	if node != "" {
		s.onNode[jobNode{t.job, node}]++
	}
}

// leave records that t no longer runs on its node.
func (s *sim) leave(t *task) {
	k := jobNode{t.job, t.node}
	if n := s.onNode[k]; n > 1 {
		s.onNode[k] = n - 1
	} else {
		delete(s.onNode, k)
	}
}

// Predicates refuses a node to a task with the different-machines
// restriction when a task of its job runs there or was allowed there in
// this cycle; a node it allows for a placement counts until the cycle's
// placements are delivered.
func (c *recorder) Predicates(a *si.PredicatesArgs) error {
	s := c.s
	t := s.byKey[a.AllocationKey]
	if t == nil {
		return nil
	}
	k := jobNode{t.job, a.NodeID}
	if t.spread && s.onNode[k]+s.cycleOn[k] > 0 {
		return errSameMachine
	}
	if a.Allocate {
		s.cycleOn[k]++
	}
	return nil
}
