// Package callback has ready-made SI resource manager callbacks for RMs and
// tests that need only some of the callbacks of api.ResourceManagerCallback.
package callback

import (
	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// Nop is an api.ResourceManagerCallback that accepts everything and keeps
// nothing: every predicate passes, every response and event is dropped. An
// RM that cares about only some callbacks embeds it and overrides those.
type Nop struct{}

var _ api.ResourceManagerCallback = Nop{}

// UpdateAllocation drops the response.
func (Nop) UpdateAllocation(*si.AllocationResponse) error { return nil }

// UpdateApplication drops the response.
func (Nop) UpdateApplication(*si.ApplicationResponse) error { return nil }

// UpdateNode drops the response.
func (Nop) UpdateNode(*si.NodeResponse) error { return nil }

// Predicates lets every proposed allocation through.
func (Nop) Predicates(*si.PredicatesArgs) error { return nil }

// PreemptionPredicates accepts every preemption plan as proposed.
func (Nop) PreemptionPredicates(*si.PreemptionPredicatesArgs) *si.PreemptionPredicatesResponse {
	return &si.PreemptionPredicatesResponse{Success: true}
}

// SendEvent drops the events.
func (Nop) SendEvent([]*si.EventRecord) {}

// UpdateContainerSchedulingState drops the update.
func (Nop) UpdateContainerSchedulingState(*si.UpdateContainerSchedulingStateRequest) {}
