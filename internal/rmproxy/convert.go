package rmproxy

import (
	"fmt"
	"strconv"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/core/partition"
	"github.com/paddock-sched/paddock/internal/resource"
	"github.com/paddock-sched/paddock/internal/resource/siconv"
)

// local holds rejections that belong to no partition (unknown RM or
// partition), per RM, until the next delivery.
func (s *Service) local(rmID string) *partition.Outbox {
	if s.pending == nil {
		s.pending = map[string]*partition.Outbox{}
	}
	o := s.pending[rmID]
	if o == nil {
		o = &partition.Outbox{}
		s.pending[rmID] = o
	}
	return o
}

// vector converts an SI resource of an RM with the RM's registry.
func (s *Service) vector(rmID string, r *si.Resource) (resource.Vector, error) {
	if r == nil {
		return resource.Vector{}, nil
	}
	return siconv.Vector(s.eng.Registry(rmID), r)
}

func (s *Service) applyNodes(req *si.NodeRequest, now time.Time) {
	for _, n := range req.Nodes {
		if n == nil {
			continue
		}
		if err := s.applyNode(req.RmID, n, now); err != nil {
			s.local(req.RmID).RejectedNodes = append(s.local(req.RmID).RejectedNodes,
				partition.Rejected{ID: n.NodeID, Reason: err.Error()})
		}
	}
}

func (s *Service) applyNode(rmID string, n *si.NodeInfo, now time.Time) error {
	p, err := s.eng.Partition(rmID, n.Attributes[common.NodePartition])
	if err != nil {
		return err
	}
	capacity, err := s.vector(rmID, n.SchedulableResource)
	if err != nil {
		return fmt.Errorf("node %s: schedulable resource: %w", n.NodeID, err)
	}
	// What other schedulers hold on a node arrives as foreign allocations;
	// the SI has no occupied field any more (docs/compatibility.md).
	if _, live := p.Node(n.NodeID); !live && n.Action != si.NodeInfo_CREATE && n.Action != si.NodeInfo_CREATE_DRAIN {
		// a change to a node the scheduler does not have (deleted, or
		// never registered) is logged, not answered, as the reference
		// does: a rejection would count as a failed node in the health
		// check for what is a late update of a node that is gone
		s.warnIgnored("update of an unknown node ignored", "rmID", rmID, "node", n.NodeID, "action", n.Action.String())
		return nil
	}
	switch n.Action {
	case si.NodeInfo_CREATE, si.NodeInfo_CREATE_DRAIN:
		if err := p.AddNode(n.NodeID, capacity, resource.Vector{}, n.Attributes, n.Action == si.NodeInfo_CREATE); err != nil {
			return err
		}
		p.Out.AcceptedNodes = append(p.Out.AcceptedNodes, n.NodeID)
		return nil
	case si.NodeInfo_UPDATE:
		var occupied resource.Vector
		if node, ok := p.Node(n.NodeID); ok {
			occupied = node.Occupied
			if n.SchedulableResource == nil {
				capacity = node.Capacity
			}
		}
		return p.UpdateNode(n.NodeID, capacity, occupied)
	case si.NodeInfo_DRAIN_NODE:
		return p.SetSchedulable(n.NodeID, false)
	case si.NodeInfo_DRAIN_TO_SCHEDULABLE:
		return p.SetSchedulable(n.NodeID, true)
	case si.NodeInfo_DECOMISSION:
		if err := p.RemoveNode(n.NodeID, now); err != nil {
			return err
		}
		s.tally.NodesRemoved++
		return nil
	}
	// the node is fine: answering "rejected" would make the shim mark a
	// healthy node rejected; the reference only logs it
	s.warnIgnored("unknown node action ignored", "rmID", rmID, "node", n.NodeID, "action", n.Action.String())
	return nil
}

func (s *Service) applyApps(req *si.ApplicationRequest, now time.Time) {
	for _, a := range req.New {
		if a == nil {
			continue
		}
		s.tally.AppsSubmitted++
		if err := s.addApp(req.RmID, a, now); err != nil {
			s.local(req.RmID).RejectedApps = append(s.local(req.RmID).RejectedApps,
				partition.Rejected{AppID: a.ApplicationID, Reason: err.Error()})
		}
	}
	for _, r := range req.Remove {
		if r == nil {
			continue
		}
		if p, err := s.eng.Partition(req.RmID, r.PartitionName); err == nil {
			s.noteRemoval(p, r.ApplicationID)
			p.RemoveApp(r.ApplicationID, now)
		}
	}
}

func (s *Service) addApp(rmID string, a *si.AddApplicationRequest, now time.Time) error {
	p, err := s.eng.Partition(rmID, a.PartitionName)
	if err != nil {
		return err
	}
	ph, err := s.vector(rmID, a.PlaceholderAsk)
	if err != nil {
		return fmt.Errorf("application %s: placeholder ask: %w", a.ApplicationID, err)
	}
	r := partition.AppRequest{
		ID:               a.ApplicationID,
		Queue:            a.QueueName,
		Tags:             a.Tags,
		PlaceholderAsk:   ph,
		GangStyle:        a.GangSchedulingStyle,
		ExecutionTimeout: time.Duration(a.ExecutionTimeoutMilliSeconds) * time.Millisecond,
	}
	if a.Ugi != nil {
		r.User, r.Groups = a.Ugi.User, a.Ugi.Groups
	}
	if ct, ok := a.Tags[common.DomainYuniKorn+common.CreationTime]; ok {
		if sec, err := strconv.ParseInt(ct, 10, 64); err == nil && sec > 0 {
			r.Created = time.Unix(sec, 0)
		}
	}
	// rejections are reported by the partition itself; the queue asked
	// for, when it exists, counts them
	if err := p.AddApp(r, now); err != nil {
		s.noteRejected(rmID, r, p.Name, err.Error(), now)
		if s.counting() {
			if q, ok := p.Tree().Queue(a.QueueName); ok {
				s.tally.queue(p.Name, q.Path).Rejected++
			}
		}
	}
	return nil
}

// applyAllocations takes in req, with what its caller prepared of it (nil
// for nothing).
func (s *Service) applyAllocations(req *si.AllocationRequest, pre *prepared, now time.Time) {
	in := askIntake{s: s, rmID: req.RmID}
	if pre != nil && pre.reg == s.eng.Registry(req.RmID) {
		in.pre = pre // else the RM registered again since: convert anew
	}
	for i, x := range req.Allocations {
		if x == nil {
			continue
		}
		in.left = len(req.Allocations) - i
		al, h := in.pre.ask(i)
		if err := in.add(x, al, h, now); err != nil {
			s.local(req.RmID).RejectedAllocs = append(s.local(req.RmID).RejectedAllocs,
				partition.Rejected{AppID: x.ApplicationID, ID: x.AllocationKey, Reason: err.Error()})
		}
		if i%cutEvery == cutEvery-1 {
			s.cut(now) // a large request need not wait whole for a pass
		}
	}
	if req.Releases != nil {
		s.applyReleases(req.RmID, req.Releases.AllocationsToRelease, now)
	}
}

// askIntake takes in the asks and allocations of one request. The asks of
// a request usually name one partition and often share one SI resource
// message (an RM that builds one per shape): it keeps the last partition
// and the last message's vector rather than looking them up per ask.
// Nothing between two asks of a request (a pass, cut) removes a partition
// or changes a registry, so both stay valid for the request.
type askIntake struct {
	s    *Service
	rmID string
	// part is the partition of the last partition name (part.name).
	part struct {
		ok   bool
		name string
		p    *partition.Partition
	}
	// res is the last resource message converted and vec its vector.
	res *si.Resource
	vec resource.Vector
	// left counts the request's items from the one taken in on; blk is
	// the rest of the block new asks and allocations are made in
	left int
	blk  []app.Allocation
	// spare is a zero allocation made for an ask of a known key, nil
	// for none
	spare *app.Allocation
	// pre is what the caller prepared, nil for nothing (prepare.go)
	pre *prepared
}

// allocBlock is how many asks of one request share one heap object: one
// object per ask was the largest count of objects per decision (and of
// the garbage collector's work). A block stays in memory while any of its
// allocations does; the asks of one request usually come and go together
// (a job's tasks), and an RM sending one ask per request gets one object
// per ask as before. A block of 29 352-byte allocations (10,208 bytes)
// fills the runtime's 10,240-byte size class; 32 of them would take the
// 12,288-byte class, 384 bytes per ask (alloc_test.go keeps the fit).
const allocBlock = 29

// newAllocation returns a zero allocation: the spare one, else one from
// the request's block.
func (in *askIntake) newAllocation() *app.Allocation {
	if x := in.spare; x != nil {
		in.spare = nil
		return x
	}
	if len(in.blk) == 0 {
		in.blk = make([]app.Allocation, min(max(in.left, 1), allocBlock))
	}
	x := &in.blk[0]
	in.blk = in.blk[1:]
	return x
}

// partition is the partition named name.
func (in *askIntake) partition(name string) (*partition.Partition, error) {
	if in.part.ok && in.part.name == name {
		return in.part.p, nil
	}
	p, err := in.s.eng.Partition(in.rmID, name)
	if err != nil {
		return nil, err
	}
	in.part.ok, in.part.name, in.part.p = true, name, p
	return p, nil
}

// vector converts r.
func (in *askIntake) vector(r *si.Resource) (resource.Vector, error) {
	if r != nil && r == in.res {
		return in.vec, nil
	}
	v, err := in.s.vector(in.rmID, r)
	if err == nil && r != nil {
		in.res, in.vec = r, v
	}
	return v, err
}

// add takes in x; al, when not nil, is x prepared by the caller: neither
// foreign nor failing to convert, with the resources x's conversion gives,
// and h is app.HashKey of its key.
func (in *askIntake) add(x *si.Allocation, al *app.Allocation, h uint64, now time.Time) error {
	p, err := in.partition(x.PartitionName)
	if err != nil {
		return err
	}
	if al == nil {
		res, err := in.vector(x.ResourcePerAlloc)
		if err != nil {
			return fmt.Errorf("allocation %s: %w", x.AllocationKey, err)
		}
		if _, foreign := x.AllocationTags[common.Foreign]; foreign {
			if x.NodeID == "" {
				return fmt.Errorf("foreign allocation %s: no node", x.AllocationKey)
			}
			return p.AddForeign(x.NodeID, x.AllocationKey, node.Foreign{
				Res: res, Tags: x.AllocationTags, Priority: x.Priority, Created: creationTime(x.AllocationTags),
				Preemptable: x.AllocationTags[common.Foreign] != common.AllocTypeStatic,
			}, now)
		}
		al = in.newAllocation()
		fillAsk(al, x, res)
		h = app.HashKey(x.AllocationKey)
	}
	// x's resources are al.Res from here (not copied: a new ask, the
	// common case, does not need them apart)
	if x.NodeID != "" {
		if a, ok := p.App(x.ApplicationID); ok {
			if old, ok := a.Allocation(x.AllocationKey); ok {
				if old.Pending() && p.BindPending(al, now) {
					return nil // the RM placed a pending ask itself
				}
				res := al.Res
				in.unused(al)
				return update(p, old, x, res)
			}
		}
		_ = p.AddAllocation(al, now) // rejections are reported by the partition
		return nil
	}
	// the ask is added unless its key is known (one look-up of the key);
	// rejections are reported by the partition
	old, _ := p.AddAskOrKnown(al, h, now)
	if old == nil {
		return nil
	}
	res := al.Res
	in.unused(al)
	return update(p, old, x, res)
}

// unused takes back al, an allocation made for x and not added: the next
// new ask takes it.
func (in *askIntake) unused(al *app.Allocation) {
	*al = app.Allocation{}
	in.spare = al
}

// update makes x, a known key's ask or allocation old, change its
// resources to res in place.
func update(p *partition.Partition, old *app.Allocation, x *si.Allocation, res resource.Vector) error {
	if old.Res == res {
		return nil
	}
	if err := p.UpdateAsk(x.ApplicationID, x.AllocationKey, res); err != nil {
		return err
	}
	if old.Origin != nil {
		old.Origin = x // not delivered yet: deliver the new resources
	}
	return nil
}

// creationTime is the time in an allocation's creationTime tag (Unix
// seconds), zero when it is absent or not a positive integer.
func creationTime(tags map[string]string) time.Time {
	if ct, ok := tags[common.CreationTime]; ok {
		if sec, err := strconv.ParseInt(ct, 10, 64); err == nil && sec > 0 {
			return time.Unix(sec, 0)
		}
	}
	return time.Time{}
}

// requiredNode is the node an ask is pinned to: the shim's tag
// yunikorn.apache.org/requiredNode, or the bare requiredNode key.
func requiredNode(tags map[string]string) string {
	if n, ok := tags[common.DomainYuniKorn+common.KeyRequiredNode]; ok {
		return n
	}
	return tags[common.KeyRequiredNode]
}
