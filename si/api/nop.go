package api

import "github.com/paddock-sched/paddock/si"

// NopCallback is a ResourceManagerCallback that accepts everything and
// keeps nothing: every predicate passes, every response and event is
// dropped. An RM that cares about only some callbacks embeds it and
// overrides those.
type NopCallback struct{}

var _ ResourceManagerCallback = NopCallback{}

// UpdateAllocation drops the response.
func (NopCallback) UpdateAllocation(*si.AllocationResponse) error { return nil }

// UpdateApplication drops the response.
func (NopCallback) UpdateApplication(*si.ApplicationResponse) error { return nil }

// UpdateNode drops the response.
func (NopCallback) UpdateNode(*si.NodeResponse) error { return nil }

// Predicates lets every node pass.
func (NopCallback) Predicates(*si.PredicatesArgs) error { return nil }

// PreemptionPredicates accepts every set of victims.
func (NopCallback) PreemptionPredicates(*si.PreemptionPredicatesArgs) *si.PreemptionPredicatesResponse {
	return &si.PreemptionPredicatesResponse{Success: true}
}

// SendEvent drops the events.
func (NopCallback) SendEvent([]*si.EventRecord) {}

// UpdateContainerSchedulingState drops the update.
func (NopCallback) UpdateContainerSchedulingState(*si.UpdateContainerSchedulingStateRequest) {}
