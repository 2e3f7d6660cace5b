// Package scheduler has the reference core's Scheduler, ClusterContext and
// PartitionContext as read-only views of a running Paddock: every lookup
// reads Paddock's current state and returns copies (package objects).
package scheduler

import (
	"context"
	"time"

	paddock "github.com/paddock-sched/paddock/scheduler"

	"github.com/apache/yunikorn-core/pkg/scheduler/objects"
)

// lookupTimeout bounds one read of the state.
const lookupTimeout = 10 * time.Second

// Scheduler is the scheduler of a ServiceContext.
type Scheduler struct {
	clusterContext *ClusterContext
}

// New wraps a running Paddock.
func New(p *paddock.Scheduler) *Scheduler {
	return &Scheduler{clusterContext: &ClusterContext{p: p}}
}

// GetClusterContext is the view of all partitions.
func (s *Scheduler) GetClusterContext() *ClusterContext { return s.clusterContext }

// ClusterContext looks partitions, applications and nodes up by name.
// Partition names are the reference's "[rmID]name"; a bare name is the
// first RM's partition of that name.
type ClusterContext struct {
	p *paddock.Scheduler
}

// view reads the current state; nil when the scheduler cannot answer.
func (c *ClusterContext) view() *paddock.View {
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	v, err := c.p.View(ctx)
	if err != nil {
		return nil
	}
	return v
}

func (c *ClusterContext) partition(name string) *paddock.Partition {
	v := c.view()
	if v == nil {
		return nil
	}
	return v.Partition(name)
}

// GetPartition is a live view of a partition, or nil when it does not
// exist now.
func (c *ClusterContext) GetPartition(name string) *PartitionContext {
	if c.partition(name) == nil {
		return nil
	}
	return &PartitionContext{Name: name, cluster: c}
}

// GetApplication is a copy of a live or terminated application, or nil.
func (c *ClusterContext) GetApplication(appID, partitionName string) *objects.Application {
	p := c.partition(partitionName)
	if p == nil {
		return nil
	}
	a := p.App(appID)
	if a == nil {
		return nil
	}
	return objects.NewApplication(a, partitionName)
}

// GetNode is a copy of a node, or nil.
func (c *ClusterContext) GetNode(nodeID, partitionName string) *objects.Node {
	p := c.partition(partitionName)
	if p == nil {
		return nil
	}
	n := p.Node(nodeID)
	if n == nil {
		return nil
	}
	return objects.NewNode(n)
}

// PartitionContext is a live view of one partition: each call reads the
// current state.
type PartitionContext struct {
	Name    string
	cluster *ClusterContext
}

// GetApplications are copies of the partition's live applications.
func (p *PartitionContext) GetApplications() []*objects.Application {
	part := p.cluster.partition(p.Name)
	if part == nil {
		return nil
	}
	out := make([]*objects.Application, 0, len(part.Apps))
	for _, a := range part.Apps {
		out = append(out, objects.NewApplication(a, p.Name))
	}
	return out
}

// GetApplication is a copy of one application, or nil.
func (p *PartitionContext) GetApplication(appID string) *objects.Application {
	return p.cluster.GetApplication(appID, p.Name)
}

// GetNodes are copies of the partition's nodes.
func (p *PartitionContext) GetNodes() []*objects.Node {
	part := p.cluster.partition(p.Name)
	if part == nil {
		return nil
	}
	out := make([]*objects.Node, 0, len(part.Nodes))
	for _, n := range part.Nodes {
		out = append(out, objects.NewNode(n))
	}
	return out
}

// GetNode is a copy of one node, or nil.
func (p *PartitionContext) GetNode(nodeID string) *objects.Node {
	return p.cluster.GetNode(nodeID, p.Name)
}
