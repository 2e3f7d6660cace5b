package rmproxy

import (
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/app"
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
	for _, rm := range s.eng.Registered() {
		id := rm.ID
		defer s.pushEvents(id, now, pushEvents)
		boxes := rm.Drain()
		if o := s.pending[id]; o != nil && !o.Empty() {
			boxes = append([]partition.Outbox{o.Take()}, boxes...)
		}
		for i := range boxes {
			if s.counting() {
				s.countBox(id, &boxes[i])
			}
			s.logRejections(id, &boxes[i])
		}
		cb := s.callbacks[id]
		if cb == nil || len(boxes) == 0 {
			continue
		}
		var nodes si.NodeResponse
		var apps, later si.ApplicationResponse
		var allocs si.AllocationResponse
		n := 0
		for _, b := range boxes {
			n += len(b.Allocations)
		}
		if n > 0 {
			allocs.New = make([]*si.Allocation, 0, n) // sized once, not grown per batch
		}
		for _, b := range boxes {
			first := firstAllocs(b)
			for _, n := range b.AcceptedNodes {
				nodes.Accepted = append(nodes.Accepted, &si.AcceptedNode{NodeID: n})
			}
			for _, r := range b.RejectedNodes {
				nodes.Rejected = append(nodes.Rejected, &si.RejectedNode{NodeID: r.ID, Reason: r.Reason})
			}
			for _, a := range b.AcceptedApps {
				apps.Accepted = append(apps.Accepted, &si.AcceptedApplication{ApplicationID: a})
			}
			for _, r := range b.RejectedApps {
				apps.Rejected = append(apps.Rejected, &si.RejectedApplication{ApplicationID: r.AppID, Reason: r.Reason})
			}
			for _, u := range b.AppUpdates {
				to := &apps
				if i, ok := first[u.AppID]; ok && i < u.Allocs {
					to = &later // follows an allocation of its application
				}
				to.Updated = append(to.Updated, &si.UpdatedApplication{
					ApplicationID: u.AppID, State: u.State.String(), StateTransitionTimestamp: u.Time, Message: u.Message,
				})
			}
			if len(b.Allocations) > 0 {
				// one block for the batch's messages, not one object each
				blk := make([]si.Allocation, len(b.Allocations))
				reg := rm.Registry()
				for i, x := range b.Allocations {
					toSI(&blk[i], reg, x, b.Partition)
					allocs.New = append(allocs.New, &blk[i])
					// the RM's message has served: an allocation that
					// lives for hours does not keep it (and its maps) alive
					x.Origin = nil
				}
			}
			for _, r := range b.Released {
				allocs.Released = append(allocs.Released, &si.AllocationRelease{
					PartitionName: r.Partition, ApplicationID: r.AppID, AllocationKey: r.AllocationKey,
					TerminationType: si.TerminationType(r.Termination), Message: r.Message,
				})
			}
			for _, r := range b.RejectedAllocs {
				allocs.RejectedAllocations = append(allocs.RejectedAllocations, &si.RejectedAllocation{
					AllocationKey: r.ID, ApplicationID: r.AppID, Reason: r.Reason,
				})
			}
		}
		if len(nodes.Accepted)+len(nodes.Rejected) > 0 {
			_ = cb.UpdateNode(&nodes)
		}
		if len(apps.Accepted)+len(apps.Rejected)+len(apps.Updated) > 0 {
			_ = cb.UpdateApplication(&apps)
		}
		if len(allocs.New)+len(allocs.Released)+len(allocs.RejectedAllocations) > 0 {
			_ = cb.UpdateAllocation(&allocs)
		}
		if len(later.Updated) > 0 {
			_ = cb.UpdateApplication(&later)
		}
		for _, b := range boxes {
			for _, w := range b.Waiting {
				cb.UpdateContainerSchedulingState(&si.UpdateContainerSchedulingStateRequest{
					ApplicationID: w.AppID, AllocationKey: w.AllocationKey,
					State: si.UpdateContainerSchedulingStateRequest_FAILED, Reason: w.Reason,
				})
			}
		}
	}
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
func firstAllocs(b partition.Outbox) map[string]int {
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
