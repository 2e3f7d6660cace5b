// Package api owns the in-process Scheduler Interface: the Go interfaces a
// resource manager (RM) and the scheduler use to talk without gRPC
// (SchedulerAPI, ResourceManagerCallback, StateDumpPlugin), and the SI
// constants for well-known node attributes, allocation tags, resource names
// and application tags. The messages exchanged are the generated types of
// package si.
package api

import "github.com/paddock-sched/paddock/si"

// SchedulerAPI is the scheduler side of the in-process interface, the API
// form of the gRPC Scheduler service. Calls may be handled asynchronously:
// results reach the RM through the ResourceManagerCallback given at
// registration.
type SchedulerAPI interface {
	// RegisterResourceManager registers a new RM. If it is a reconnect from a
	// previous RM, all in-memory data is cleaned up and the RM is expected
	// to resync.
	RegisterResourceManager(request *si.RegisterResourceManagerRequest, callback ResourceManagerCallback) (*si.RegisterResourceManagerResponse, error)

	// UpdateAllocation adds, updates or releases allocations and asks.
	UpdateAllocation(request *si.AllocationRequest) error

	// UpdateApplication adds or removes applications.
	UpdateApplication(request *si.ApplicationRequest) error

	// UpdateNode adds, updates, drains or decommissions nodes.
	UpdateNode(request *si.NodeRequest) error

	// UpdateConfiguration notifies the scheduler to reload configuration and
	// hot-refresh in-memory state based on the configuration changes.
	UpdateConfiguration(request *si.UpdateConfigurationRequest) error

	// Stop stops the scheduler API service.
	Stop()
}

// ResourceManagerCallback is implemented by the RM side; the scheduler
// delivers its responses and plugin calls through it.
type ResourceManagerCallback interface {
	// UpdateAllocation receives an allocation update response.
	UpdateAllocation(response *si.AllocationResponse) error

	// UpdateApplication receives an application update response.
	UpdateApplication(response *si.ApplicationResponse) error

	// UpdateNode receives a node update response.
	UpdateNode(response *si.NodeResponse) error

	// Predicates runs a set of predicate functions to determine whether a
	// proposed allocation can be allocated onto a node.
	Predicates(args *si.PredicatesArgs) error

	// PreemptionPredicates runs predicate functions to determine whether a
	// proposed allocation can be allocated onto a node after preemption;
	// the request lists the allocations to remove speculatively.
	PreemptionPredicates(args *si.PreemptionPredicatesArgs) *si.PreemptionPredicatesResponse

	// SendEvent transmits events to the shim side, which may expose them
	// further.
	SendEvent(events []*si.EventRecord)

	// UpdateContainerSchedulingState updates the container scheduling state
	// on the shim side. It may be called even when the state is unchanged,
	// so the shim must not assume it only receives changes; the shim
	// implementation must be thread safe.
	UpdateContainerSchedulingState(request *si.UpdateContainerSchedulingStateRequest)
}

// StateDumpPlugin may additionally be implemented by an RM to provide
// information during state dumps.
type StateDumpPlugin interface {
	// GetStateDump returns a JSON representation of the state of the shim.
	// The name keeps the spec's Get prefix so existing shims satisfy it.
	GetStateDump() (string, error)
}
