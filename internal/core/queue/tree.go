package queue

import (
	"fmt"
	"slices"
	"strings"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/prio"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Tree is a partition's queue tree.
type Tree struct {
	Root    *Queue
	byPath  map[string]*Queue
	reg     *resource.Registry
	cluster resource.Vector
	touched []*Queue
	changed func(ChangeKind, *Queue)
	// floor is PriorityFloor's summary of the priority offsets, valid
	// while floor.ok (priofloor.go).
	floor priorityFloor
}

// Build creates the tree of a validated partition configuration.
func Build(reg *resource.Registry, pc *config.PartitionConfig) (*Tree, error) {
	t := &Tree{byPath: map[string]*Queue{}, reg: reg}
	if err := t.Reconfigure(pc); err != nil {
		return nil, err
	}
	return t, nil
}

// Queue returns the queue with the given fully qualified path.
func (t *Tree) Queue(path string) (*Queue, bool) {
	q, ok := t.byPath[strings.ToLower(path)]
	return q, ok
}

// Leaf returns the leaf queue of application a, nil when there is none:
// a.QueuePath is the path of the queue it was placed in, lower case
// already, so no case folding is needed. It runs for every ask taken in
// and placed, so the queue found is kept in a.Leaf: while that queue is
// in the tree (a removed queue is marked gone) and its path is still
// a.QueuePath, it is the one byPath holds under that path.
func (t *Tree) Leaf(a *app.App) *Queue {
	if q, ok := a.Leaf.(*Queue); ok && !q.gone && q.Path == a.QueuePath {
		return q
	}
	q := t.byPath[a.QueuePath]
	if q != nil {
		a.Leaf = q
	}
	return q
}

// Each calls fn for every queue, parents before children, children in name
// order.
func (t *Tree) Each(fn func(*Queue)) {
	var walk func(*Queue)
	walk = func(q *Queue) {
		fn(q)
		for _, n := range q.names {
			walk(q.children[n])
		}
	}
	walk(t.Root)
}

// Cluster returns the cluster capacity the root's max is set to.
func (t *Tree) Cluster() resource.Vector { return t.cluster }

// planned is one configured queue with its parsed resources.
type planned struct {
	cfg                  *config.QueueConfig
	guaranteed, maxQuota resource.Quota
}

// CheckReconfigure reports whether Reconfigure would accept pc, without
// changing anything.
func (t *Tree) CheckReconfigure(pc *config.PartitionConfig) error {
	_, _, err := t.plan(pc)
	return err
}

// plan validates pc against the live tree and lists what to apply.
func (t *Tree) plan(pc *config.PartitionConfig) ([]planned, map[string]bool, error) {
	if len(pc.Queues) != 1 || !strings.EqualFold(pc.Queues[0].Name, config.RootQueue) {
		return nil, nil, fmt.Errorf("partition %s: configuration must have the single queue root", pc.Name)
	}
	var plan []planned
	seen := map[string]bool{}
	var check func(c *config.QueueConfig, path string) error
	check = func(c *config.QueueConfig, path string) error {
		seen[path] = true
		if q, ok := t.byPath[path]; ok {
			leaf := c.IsLeaf()
			if q.Leaf && !leaf && len(q.apps) > 0 {
				return fmt.Errorf("queue %s: cannot become a parent while it has applications", path)
			}
			if !q.Leaf && leaf && len(q.children) > 0 {
				return fmt.Errorf("queue %s: cannot become a leaf while it has child queues", path)
			}
		}
		g, err := t.reg.QuotaFromMap(c.Guaranteed)
		if err != nil {
			return fmt.Errorf("queue %s: resources.guaranteed: %w", path, err)
		}
		m, err := t.reg.QuotaFromMap(c.Max)
		if err != nil {
			return fmt.Errorf("queue %s: resources.max: %w", path, err)
		}
		plan = append(plan, planned{cfg: c, guaranteed: g, maxQuota: m})
		for i := range c.Queues {
			if err := check(&c.Queues[i], path+"."+strings.ToLower(c.Queues[i].Name)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := check(&pc.Queues[0], config.RootQueue); err != nil {
		return nil, nil, err
	}
	return plan, seen, nil
}

// Reconfigure applies a validated partition configuration to the live tree:
// changed settings are applied, new queues created, configured queues that
// disappeared are marked Draining (with their children), and re-added
// queues become Active again. It is all-or-nothing: a change that cannot be
// applied (a leaf holding applications that would become a parent, a
// parent with children that would become a leaf) returns an error and
// changes nothing.
func (t *Tree) Reconfigure(pc *config.PartitionConfig) error {
	plan, seen, err := t.plan(pc)
	if err != nil {
		return err
	}
	// apply
	type note struct {
		k ChangeKind
		q *Queue
	}
	var notes []note
	for _, p := range plan {
		c := p.cfg
		path := c.Path
		if path == "" {
			path = config.RootQueue
		}
		path = strings.ToLower(path)
		q, ok := t.byPath[path]
		created := !ok
		if !ok {
			var parent *Queue
			name := path
			if i := strings.LastIndexByte(path, '.'); i >= 0 {
				parent = t.byPath[path[:i]]
				name = path[i+1:]
			}
			q = newQueue(name, parent, c.IsLeaf())
			t.byPath[path] = q
			if parent == nil {
				t.Root = q
			}
		}
		if created {
			notes = append(notes, note{Added, q})
		} else {
			if q.Leaf != c.IsLeaf() {
				notes = append(notes, note{TypeChanged, q})
			}
			if q.Parent != nil && q.Max != p.maxQuota {
				notes = append(notes, note{MaxChanged, q})
			}
			if q.Guaranteed != p.guaranteed {
				notes = append(notes, note{GuaranteedChanged, q})
			}
		}
		q.Leaf = c.IsLeaf()
		q.Managed = true
		q.State = Active
		q.Guaranteed = p.guaranteed
		if q.Parent != nil {
			q.Max = p.maxQuota
		}

		q.MaxApps = c.MaxApplications
		q.applyProps(c.Effective)
		t.floor.ok = false
		q.Submit, q.Admin = c.Submit, c.Admin
		q.Template = c.Template
		q.Config = c
	}
	// configured queues that are gone drain, with the configured queues
	// below them; a dynamic queue below stays active, as in the reference
	// (removal marks managed queues only): the namespaces placed there
	// keep scheduling, and a parent put back finds them as they were
	for path, q := range t.byPath {
		if q.Managed && !seen[path] {
			q.markDraining()
		}
	}
	t.refresh()
	for _, n := range notes {
		t.note(n.k, n.q)
	}
	return nil
}

func (q *Queue) markDraining() {
	if !q.Managed {
		return
	}
	q.State = Draining
	for _, c := range q.children {
		c.markDraining()
	}
}

// CreateDynamic creates the queue at path and every missing ancestor
// (reference §1.9): intermediate levels become parents, the last a leaf
// configured from the nearest child template. It fails when the nearest
// existing ancestor is a leaf or draining.
func (t *Tree) CreateDynamic(path string) (*Queue, error) {
	path = strings.ToLower(path)
	if q, ok := t.byPath[path]; ok {
		return q, nil
	}
	parts := strings.Split(path, ".")
	if parts[0] != config.RootQueue || len(parts) < 2 {
		return nil, fmt.Errorf("queue %s: not below root", path)
	}
	cur := t.Root
	for i, name := range parts[1:] {
		last := i == len(parts)-2
		if c, ok := cur.children[name]; ok {
			cur = c
			continue
		}
		if cur.Leaf {
			return nil, fmt.Errorf("queue %s: cannot create a child under leaf queue %s", path, cur.Path)
		}
		if cur.State == Draining {
			return nil, fmt.Errorf("queue %s: parent queue %s is draining", path, cur.Path)
		}
		q := newQueue(name, cur, last)
		q.Submit, q.Admin = config.ACL{}, config.ACL{}
		q.Template = cur.Template
		if last && cur.Template != nil {
			tpl := cur.Template
			q.MaxApps = tpl.MaxApplications
			q.Guaranteed, _ = t.reg.QuotaFromMap(tpl.Guaranteed)
			q.Max, _ = t.reg.QuotaFromMap(tpl.Max)
			q.applyProps(tpl.Effective)
		} else {
			q.applyProps(config.DefaultProperties())
		}
		t.floor.ok = false
		q.fairMax = q.Max.Overlay(cur.fairMax)
		t.byPath[q.Path] = q
		t.note(Added, q)
		cur = q
	}
	return cur, nil
}

// Remove deletes an empty queue that is dynamic or draining. It reports
// whether the queue was removed.
func (t *Tree) Remove(q *Queue) bool {
	if q.Parent == nil || !q.Empty() || q.pendingAsks > 0 || (q.Managed && q.State != Draining) {
		return false
	}
	p := q.Parent
	if q.index >= 0 {
		p.kids.remove(q)
	}
	delete(p.children, q.Name)
	for i, n := range p.names {
		if n == q.Name {
			p.names = append(p.names[:i], p.names[i+1:]...)
			break
		}
	}
	p.rankChildren()
	delete(t.byPath, q.Path)
	q.gone = true
	t.note(Removed, q)
	return true
}

// SetCluster sets the cluster capacity: the root's max, and the fair max
// every queue's share is computed against.
func (t *Tree) SetCluster(capacity resource.Vector) {
	t.cluster = capacity
	t.Root.Max = resource.QuotaOf(capacity)
	// the leaves' pending-ask counts per priority do not depend on the
	// cluster's size and are kept up to date as asks come and go: only
	// the fair maxima, shares and orderings need recomputing (recounting
	// every allocation of every application made each node change cost
	// O(allocations))
	t.refreshWith(false)
}

// refresh recomputes fair maxima, shares, priorities and every ordering
// from scratch (after a configuration change).
func (t *Tree) refresh() { t.refreshWith(true) }

// refreshWith recomputes fair maxima, shares and every ordering; recount
// also recounts the leaves' pending asks per priority from their
// applications.
func (t *Tree) refreshWith(recount bool) {
	var walk func(q *Queue)
	walk = func(q *Queue) {
		if q.Parent == nil {
			q.fairMax = t.cluster
		} else {
			q.fairMax = q.Max.Overlay(q.Parent.fairMax)
		}
		q.kids.q = q.kids.q[:0]
		q.runnable.a = q.runnable.a[:0]
		for _, n := range q.names {
			c := q.children[n]
			c.index = -1
			walk(c)
		}
		if q.Leaf {
			if recount {
				q.prios.Reset()
			}
			for _, a := range q.apps {
				a.QueueIndex = -1
				if recount {
					a.Each(func(x *app.Allocation) bool {
						if x.Pending() {
							q.count(x.Priority, 1)
						}
						return true
					})
				}
				q.placeApp(a)
			}
		} else {
			q.prios.Reset()
			for _, n := range q.names {
				if c := q.children[n]; c.prio != prio.None {
					q.count(c.prio, 1)
				}
			}
		}
		q.prio = q.priorityAfterPolicy(q.prios.Max())
		q.share = resource.FairShare(q.Allocated, q.Guaranteed, q.fairMax)
		q.pendW = pendingWeight(q)
		if p := q.Parent; p != nil && q.pendingAsks > 0 && !q.deferred {
			p.kids.push(q)
		}
	}
	walk(t.Root)
}

// AddApp puts application a into leaf q with whatever it already holds.
func (q *Queue) AddApp(a *app.App) {
	q.apps[a.ID] = a
	a.QueuePath = q.Path
	var n int
	a.Each(func(x *app.Allocation) bool {
		if x.Pending() {
			q.count(x.Priority, 1)
			n++
		} else {
			q.Holds(&x.Res)
		}
		return true
	})
	for x := q; x != nil; x = x.Parent {
		x.Allocated.Inc(a.Allocated)
		x.Pending.Inc(a.Pending)
		x.pendingAsks += n
	}
	q.placeApp(a)
	q.refreshPath()
}

// RemoveApp takes application a out of leaf q with whatever it still holds.
func (q *Queue) RemoveApp(a *app.App) {
	if q.apps[a.ID] != a {
		return
	}
	delete(q.apps, a.ID)
	var n int
	a.Each(func(x *app.Allocation) bool {
		if x.Pending() {
			q.count(x.Priority, -1)
			n++
		}
		return true
	})
	a.Deferred = false
	if a.QueueIndex >= 0 {
		q.runnable.remove(a)
	}
	for x := q; x != nil; x = x.Parent {
		x.Allocated.Dec(a.Allocated)
		x.Pending.Dec(a.Pending)
		x.pendingAsks -= n
	}
	q.clearHeld()
	q.refreshPath()
}

// CleanUp removes every empty queue that is draining or dynamic, deepest
// first, so a removed parent's emptied ancestors go too. It returns how
// many queues it removed.
func (t *Tree) CleanUp() int {
	removed := 0
	var walk func(q *Queue)
	walk = func(q *Queue) {
		for _, n := range slices.Clone(q.names) {
			walk(q.children[n])
		}
		if q.Parent != nil && (!q.Managed || q.State == Draining) && t.Remove(q) {
			removed++
		}
	}
	walk(t.Root)
	return removed
}

// Recovery returns the recovery queue root.@recovery@, creating it when
// needed: a dynamic fifo leaf without quota or template whose ACL denies
// everyone (reference §1.3); only forced applications are placed there.
func (t *Tree) Recovery() *Queue {
	path := config.RootQueue + "." + config.RecoveryQueue
	if q, ok := t.byPath[path]; ok {
		return q
	}
	q := newQueue(config.RecoveryQueue, t.Root, true)
	q.applyProps(config.DefaultProperties())
	t.floor.ok = false
	q.fairMax = t.Root.fairMax
	t.byPath[path] = q
	t.note(Added, q)
	return q
}

// Override sets the max, guaranteed and maxapplications of a dynamic queue
// from application tags (only the given ones) and re-orders the tree.
func (t *Tree) Override(q *Queue, maxQ resource.Quota, setMax bool, guar resource.Quota, setGuar bool, maxApps uint64) {
	if q.Managed {
		return
	}
	if setMax {
		q.Max = maxQ
	}
	if setGuar {
		q.Guaranteed = guar
	}
	if maxApps > 0 {
		q.MaxApps = maxApps
	}
	t.refresh()
}
