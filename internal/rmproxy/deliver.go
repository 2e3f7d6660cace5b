package rmproxy

import (
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/core/partition"
	"github.com/paddock-sched/paddock/internal/resource"
	"github.com/paddock-sched/paddock/internal/resource/siconv"
)

// deliver sends every RM what the engine decided since the last delivery:
// one NodeResponse, ApplicationResponse and AllocationResponse per RM at
// most, in that order, and a second ApplicationResponse with the state
// changes that followed an allocation of their application (so the RM
// hears Accepted, then the allocations, then Running).
func (s *Service) deliver(now time.Time, pushEvents bool) {
	s.batching.delivered()
	s.deliverEach(now, pushEvents)
}

// deliverEach is deliver without starting a new batch (settle's: the
// batch clock stays where it is, and reading it per allocation costs).
func (s *Service) deliverEach(now time.Time, pushEvents bool) {
	for _, rm := range s.eng.Registered() {
		s.deliverTo(rm, now, pushEvents)
	}
}

// deliverTo is deliver for one RM. It reads the outboxes in place and
// empties them after, keeping their arrays, and builds a response only
// for what there is: with an RM that answers Predicates a pass delivers
// after every allocation (settle), so a delivery of one allocation makes
// one heap object.
func (s *Service) deliverTo(rm *engine.RM, now time.Time, pushEvents bool) {
	id := rm.ID
	p := parcel{cb: s.callbacks[id], gate: &s.lead}
	defer s.send(id, &p)
	if s.lead.closed() {
		s.hold(rm, &p) // a standby's RMs hear of their nodes only (standby.go)
		return
	}
	defer s.pushEvents(id, &p, now, pushEvents)
	boxes := s.boxes[:0]
	s.boxes = nil // a delivery a callback causes makes its own list
	if o := s.pending[id]; o != nil && !o.Empty() {
		boxes = append(boxes, o) // decided before the engine's
	}
	boxes = rm.Outboxes(boxes)
	for _, b := range boxes {
		if s.counting() {
			s.countBox(id, b)
		}
		s.logRejections(id, b)
	}
	if p.cb == nil || len(boxes) == 0 {
		s.emptied(rm, boxes)
		return
	}
	var (
		acceptedNodes []*si.AcceptedNode
		rejectedNodes []*si.RejectedNode
		apps, later   appResponse
		released      []*si.AllocationRelease
		rejected      []*si.RejectedAllocation
	)
	allocs := newAllocations(boxes, &s.ones)
	for _, b := range boxes {
		first := firstAllocs(b)
		for _, n := range b.AcceptedNodes {
			acceptedNodes = append(acceptedNodes, &si.AcceptedNode{NodeID: n})
		}
		for _, r := range b.RejectedNodes {
			rejectedNodes = append(rejectedNodes, &si.RejectedNode{NodeID: r.ID, Reason: r.Reason})
		}
		for _, a := range b.AcceptedApps {
			apps.accepted = append(apps.accepted, &si.AcceptedApplication{ApplicationID: a})
		}
		for _, r := range b.RejectedApps {
			apps.rejected = append(apps.rejected, &si.RejectedApplication{ApplicationID: r.AppID, Reason: r.Reason})
		}
		for _, u := range b.AppUpdates {
			to := &apps
			if i, ok := first[u.AppID]; ok && i < u.Allocs || u.State.Terminal() {
				// follows an allocation of its application, or ends it:
				// the RM hears of the releases that led there first (a
				// Hard gang's placeholders as it fails; the shim handles
				// a release only while the application is not Failed,
				// and forgets a Completed one at once)
				to = &later
			}
			to.updated = append(to.updated, &si.UpdatedApplication{
				ApplicationID: u.AppID, State: u.State.String(), StateTransitionTimestamp: u.Time, Message: u.Message,
			})
		}
		reg := rm.Registry()
		for _, x := range b.Allocations {
			toSI(allocs.next(), reg, x, b.Partition)
			// the RM's message has served: an allocation that lives
			// for hours does not keep it (and its maps) alive
			x.Origin = nil
		}
		for _, r := range b.Released {
			released = append(released, &si.AllocationRelease{
				PartitionName: r.Partition, ApplicationID: r.AppID, AllocationKey: r.AllocationKey,
				TerminationType: si.TerminationType(r.Termination), Message: r.Message,
			})
		}
		for _, r := range b.RejectedAllocs {
			rejected = append(rejected, &si.RejectedAllocation{
				AllocationKey: r.ID, ApplicationID: r.AppID, Reason: r.Reason,
			})
		}
	}
	var waiting []*si.UpdateContainerSchedulingStateRequest
	for _, b := range boxes {
		for _, w := range b.Waiting {
			waiting = append(waiting, &si.UpdateContainerSchedulingStateRequest{
				ApplicationID: w.AppID, AllocationKey: w.AllocationKey,
				State: si.UpdateContainerSchedulingStateRequest_FAILED, Reason: w.Reason,
			})
		}
	}
	// everything is built: the outboxes are empty before the RM is called,
	// so what a callback's own request adds is delivered next time
	s.emptied(rm, boxes)
	if len(acceptedNodes)+len(rejectedNodes) > 0 {
		p.nodes = &si.NodeResponse{Accepted: acceptedNodes, Rejected: rejectedNodes}
	}
	if !apps.empty() {
		p.apps = apps.response()
	}
	p.allocs = allocs.response(released, rejected)
	if !later.empty() {
		p.later = later.response()
	}
	p.waiting = waiting
}

// send hands parcel p to RM rmID's courier, or makes its calls at once
// on a manual service (courier.go).
func (s *Service) send(rmID string, p *parcel) {
	if p.cb == nil || p.empty() {
		return
	}
	if c := s.couriers[rmID]; c != nil {
		c.hand(*p)
		return
	}
	p.send()
}

// emptied empties the delivered outboxes of rm (boxes, read in place) and
// keeps the list's array for the next delivery.
func (s *Service) emptied(rm *engine.RM, boxes []*partition.Outbox) {
	if o := s.pending[rm.ID]; o != nil {
		o.Reset()
	}
	rm.Delivered()
	clear(boxes)
	s.boxes = boxes[:0]
}

// appResponse collects an ApplicationResponse's lists; the response is
// made only when there is something to send.
type appResponse struct {
	accepted []*si.AcceptedApplication
	rejected []*si.RejectedApplication
	updated  []*si.UpdatedApplication
}

func (r *appResponse) empty() bool {
	return len(r.accepted)+len(r.rejected)+len(r.updated) == 0
}

func (r *appResponse) response() *si.ApplicationResponse {
	return &si.ApplicationResponse{Accepted: r.accepted, Rejected: r.rejected, Updated: r.updated}
}

// allocations builds the AllocationResponse of a delivery: its messages
// for the new allocations come from one block, and a delivery of a single
// allocation (the usual one with an RM that answers Predicates, settle)
// takes the response, its list and the message as one object from a block
// of oneBlock of them that later such deliveries share.
type allocations struct {
	one  *oneAllocation
	list []*si.Allocation
	blk  []si.Allocation
}

// oneAllocation is the response of a delivery of one allocation.
type oneAllocation struct {
	resp si.AllocationResponse
	list [1]*si.Allocation
	msg  si.Allocation
}

// oneBlock is how many one-allocation responses are allocated at once:
// a block is about 10 KiB, which lives while the RM keeps any of them.
const oneBlock = 32

// newAllocations sizes the messages for the allocations in boxes; a
// single allocation's comes from the block ones.
func newAllocations(boxes []*partition.Outbox, ones *[]oneAllocation) allocations {
	n := 0
	for _, b := range boxes {
		n += len(b.Allocations)
	}
	switch n {
	case 0:
		return allocations{}
	case 1:
		if len(*ones) == 0 {
			*ones = make([]oneAllocation, oneBlock)
		}
		one := &(*ones)[0]
		*ones = (*ones)[1:]
		return allocations{one: one}
	}
	return allocations{list: make([]*si.Allocation, 0, n), blk: make([]si.Allocation, n)}
}

// next returns the message of the next allocation.
func (a *allocations) next() *si.Allocation {
	if a.one != nil {
		return &a.one.msg
	}
	m := &a.blk[len(a.list)]
	a.list = append(a.list, m)
	return m
}

// response returns the AllocationResponse with the releases and rejections,
// nil when there is nothing to send.
func (a *allocations) response(released []*si.AllocationRelease, rejected []*si.RejectedAllocation) *si.AllocationResponse {
	var r *si.AllocationResponse
	switch {
	case a.one != nil:
		a.one.list[0] = &a.one.msg
		r = &a.one.resp
		r.New = a.one.list[:]
	case len(a.list) > 0:
		r = &si.AllocationResponse{New: a.list}
	case len(released)+len(rejected) > 0:
		r = &si.AllocationResponse{}
	default:
		return nil
	}
	r.Released, r.RejectedAllocations = released, rejected
	return r
}

// toSI fills out with the SI message of allocation x, made in partition
// part.
func toSI(out *si.Allocation, reg *resource.Registry, x *app.Allocation, part string) {
	out.AllocationKey = x.Key
	out.AllocationTags = x.Tags
	out.Priority = x.Priority
	out.NodeID = x.NodeID
	out.ApplicationID = x.AppID
	out.PartitionName = part
	out.TaskGroupName = x.TaskGroup
	out.Placeholder = x.Placeholder
	out.Originator = x.Originator
	// the RM's own message carries the same resources and policy: share
	// them rather than building new maps for every allocation
	if o, ok := x.Origin.(*si.Allocation); ok && o.ResourcePerAlloc != nil {
		out.ResourcePerAlloc = o.ResourcePerAlloc
		out.PreemptionPolicy = o.PreemptionPolicy
		return
	}
	out.ResourcePerAlloc, _ = siconv.Resource(reg, x.Res)
	out.PreemptionPolicy = &si.PreemptionPolicy{AllowPreemptSelf: x.PreemptSelf, AllowPreemptOther: x.PreemptOther}
}

// firstAllocs maps each application with allocations in b to the index of
// its first one.
func firstAllocs(b *partition.Outbox) map[string]int {
	if len(b.Allocations) == 0 || len(b.AppUpdates) == 0 {
		return nil
	}
	first := map[string]int{}
	for i, x := range b.Allocations {
		if _, ok := first[x.AppID]; !ok {
			first[x.AppID] = i
		}
	}
	return first
}
