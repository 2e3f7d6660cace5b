package partition

import "github.com/paddock-sched/paddock/internal/core/node"

// markStale defers re-positioning n in the node index to the next reader
// of the index. A resync recovers hundreds of thousands of allocations on a
// few thousand nodes: re-positioning the node after each one was a quarter
// of a restarted scheduler's CPU; deferred, each node moves once. Until
// then the index is still a valid tree under its recorded keys, only
// n's place and its available vector are old, so removing or updating n
// meanwhile is safe.
func (p *Partition) markStale(n *node.Node) {
	if p.stale == nil {
		p.stale = make(map[*node.Node]struct{})
	}
	p.stale[n] = struct{}{}
}

// nodeIndex is the node index with every deferred re-positioning done;
// every reader of the index's order goes through it. The tree's shape
// depends on the order of the updates, but the order of its entries, and
// so every answer it gives, only on their keys (score, then node ID): the
// map's order does not change any decision.
func (p *Partition) nodeIndex() *node.Index {
	if len(p.stale) > 0 {
		for n := range p.stale {
			p.index.Update(n)
		}
		clear(p.stale)
	}
	return p.index
}
