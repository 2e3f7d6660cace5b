package rest

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/snapshot"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Conversions from a snapshot to the JSON shapes. They read only the
// snapshot.

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func strMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func strList(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// percent is used*100/capacity per type with a positive capacity.
func percent(p *snapshot.Partition, used, capacity resource.Vector) Resource {
	out := Resource{}
	for i := range capacity {
		if capacity[i] > 0 {
			out[p.ResourceName(i)] = int64(float64(used[i]) * 100 / float64(capacity[i]))
		}
	}
	return out
}

func clusterInfo(s *snapshot.Snapshot, p *snapshot.Partition) ClusterInfo {
	ci := ClusterInfo{StartTime: nanos(p.Created), Partition: p.Name, ClusterName: "kubernetes", RMBuildInformation: []map[string]string{}}
	if rm, ok := s.RM(p.RMID); ok {
		b := map[string]string{}
		for k, v := range rm.BuildInfo {
			b[k] = v
		}
		b["rmId"] = rm.ID
		ci.RMBuildInformation = append(ci.RMBuildInformation, b)
	}
	return ci
}

func partitionInfo(s *snapshot.Snapshot, p *snapshot.Partition) PartitionInfo {
	pi := PartitionInfo{
		ClusterID: p.RMID, Name: p.Name, TotalNodes: len(p.Nodes), TotalContainers: p.Allocations,
		State: "Active", LastStateTransitionTime: nanos(p.Created),
		Applications: map[string]int{"total": len(p.Apps) + len(p.Done)},
		Capacity:     PartitionCapacity{Capacity: p.Map(p.Capacity), UsedCapacity: Resource{}, Utilization: Resource{}},
	}
	if p.Root != nil {
		pi.Capacity.UsedCapacity = p.Map(p.Root.Allocated)
		pi.Capacity.Utilization = percent(p, p.Root.Allocated, p.Capacity)
	}
	if c := p.Config; c != nil {
		pi.NodeSortingPolicy = NodeSortingPolicy{Type: c.NodeSortPolicy.Type, ResourceWeights: c.NodeSortPolicy.ResourceWeights}
		pi.PreemptionEnabled = c.Preemption.Enabled
		pi.QuotaPreemptionEnabled = c.Preemption.QuotaPreemptionEnabled
	}
	if pi.NodeSortingPolicy.ResourceWeights == nil {
		pi.NodeSortingPolicy.ResourceWeights = map[string]float64{}
	}
	for _, list := range [][]*snapshot.App{p.Apps, p.Done} {
		for _, a := range list {
			pi.Applications[a.State.String()]++
		}
	}
	return pi
}

func ruleInfo(r *config.PlacementRule) PlacementRuleInfo {
	out := PlacementRuleInfo{Name: r.Name, Parameters: map[string]string{}}
	create := strconv.FormatBool(r.Create)
	switch r.Name {
	case config.RuleProvided, config.RuleUser:
		out.Parameters["create"] = create
	case config.RuleFixed:
		out.Parameters["queue"] = r.Value
		out.Parameters["create"] = create
		out.Parameters["qualified"] = strconv.FormatBool(strings.Contains(r.Value, "."))
	case config.RuleTag:
		out.Parameters["tagName"] = r.Value
		out.Parameters["create"] = create
	case config.RuleRecovery:
		out.Parameters["queue"] = "root." + config.RecoveryQueue
	}
	if r.Filter.Type != "" || len(r.Filter.Users)+len(r.Filter.Groups) > 0 {
		f := &FilterInfo{Type: r.Filter.Type}
		if f.Type == "" {
			f.Type = config.FilterAllow
		}
		split := func(entries []string) (names []string, exp string) {
			for _, e := range entries {
				if strings.ContainsAny(e, `^$*+?()[]{}|\`) && exp == "" {
					exp = e
				} else {
					names = append(names, e)
				}
			}
			return names, exp
		}
		f.UserList, f.UserExp = split(r.Filter.Users)
		f.GroupList, f.GroupExp = split(r.Filter.Groups)
		out.Filter = f
	}
	if r.Parent != nil {
		p := ruleInfo(r.Parent)
		out.ParentRule = &p
	}
	return out
}

func rulesInfo(p *snapshot.Partition) []PlacementRuleInfo {
	out := make([]PlacementRuleInfo, 0, len(p.Rules))
	for i := range p.Rules {
		out = append(out, ruleInfo(&p.Rules[i]))
	}
	return out
}

// absUsed is a queue's allocation as a percentage of its effective max:
// per type, the nearest max on the path to the root, else the partition's
// capacity.
func absUsed(s *snapshot.Snapshot, p *snapshot.Partition, q *snapshot.Queue) Resource {
	out := Resource{}
	for i, used := range q.Allocated {
		if used == 0 {
			continue
		}
		limit := p.Capacity[i]
		for x := q; x != nil; {
			if l, ok := x.Max.Limit(resource.Index(i)); ok {
				limit = l
				break
			}
			if x.Parent == "" {
				break
			}
			x, _ = p.Queue(x.Parent)
		}
		if limit > 0 {
			out[p.ResourceName(i)] = int64(float64(used) * 100 / float64(limit))
		}
	}
	return out
}

func queueInfo(s *snapshot.Snapshot, p *snapshot.Partition, q *snapshot.Queue, subtree bool) QueueInfo {
	qi := QueueInfo{
		QueueName: q.Path, Status: q.State, PendingResource: p.Map(q.Pending),
		AllocatedResource: p.Map(q.Allocated), PreemptingResource: p.Map(q.Preempting),
		IsLeaf: q.Leaf, IsManaged: q.Managed, Properties: strMap(q.Properties), Parent: q.Parent,
		Children: []QueueInfo{}, ChildNames: []string{}, AbsUsedCapacity: absUsed(s, p, q),
		MaxRunningApps: q.MaxApps, RunningApps: q.RunningApps, AllocatingAcceptedApps: []string{},
		SortingPolicy: q.Props.SortPolicy, PrioritySorting: q.Props.SortPriority,
		PreemptionEnabled:    q.Props.PreemptionPolicy != config.PolicyDisabled,
		IsPreemptionFence:    q.Props.PreemptionPolicy == config.PolicyFence,
		PreemptionDelay:      q.Props.PreemptionDelay.String(),
		QuotaPreemptionDelay: q.Props.QuotaPreemptionDelay.String(),
		IsPriorityFence:      q.Props.PriorityPolicy == config.PolicyFence,
		PriorityOffset:       q.Props.PriorityOffset,
		CurrentPriority:      q.Priority, // math.MinInt32 when nothing is pending, as in the reference
	}
	if q.Parent == "" {
		qi.Partition = p.Name
	}
	if !q.Max.IsUnlimited() {
		qi.MaxResource = p.QuotaMap(q.Max)
	}
	if !q.Guaranteed.IsUnlimited() {
		qi.GuaranteedResource = p.QuotaMap(q.Guaranteed)
	}
	if !q.Headroom.IsUnlimited() {
		qi.Headroom = p.QuotaMap(q.Headroom)
	}
	if t := q.Template; t != nil && !t.IsEmpty() {
		qi.Template = &TemplateInfo{
			MaxApplications: t.MaxApplications, MaxResource: t.Max, GuaranteedResource: t.Guaranteed,
			Properties: t.Properties,
		}
	}
	for _, c := range q.Children {
		qi.ChildNames = append(qi.ChildNames, c.Name)
		if subtree {
			qi.Children = append(qi.Children, queueInfo(s, p, c, true))
		}
	}
	return qi
}

func stateLog(a *snapshot.App) []StateInfo {
	out := make([]StateInfo, 0, len(a.StateLog))
	for _, c := range a.StateLog {
		out = append(out, StateInfo{Time: nanos(c.Time), State: c.State.String()})
	}
	return out
}

func appInfo(s *snapshot.Snapshot, p *snapshot.Partition, a *snapshot.App) AppInfo {
	ai := AppInfo{
		ApplicationID: a.ID, UsedResource: p.Map(a.Allocated.Sub(a.Placeholder)), MaxUsedResource: p.Map(a.MaxAllocated),
		PendingResource: p.Map(a.Pending), Partition: a.Partition, QueueName: a.Queue,
		SubmissionTime: nanos(a.Submitted), State: a.State.String(), User: a.User, Groups: strList(a.Groups),
		StateLog: stateLog(a), Requests: make([]AskInfo, 0, len(a.Asks)),
		Allocations: make([]AllocationInfo, 0, len(a.Allocations)), PlaceholderData: []PlaceholderInfo{},
		HasReserved: len(a.Reserved) > 0, Reservations: []string{},
		ResourceHistory: ResourceHistory{
			ResourceUsage: usageInfo(p, a.History.Used), PreemptedResource: usageInfo(p, a.History.Preempted),
			PlaceholderResource: usageInfo(p, a.History.Placeholder),
		},
	}
	if a.HasPending {
		ai.MaxRequestPriority = a.MaxPriority
	}
	if !a.Finished.IsZero() {
		f := a.Finished.UnixNano()
		ai.FinishedTime = &f
	}
	if !a.Started.IsZero() {
		ai.StartTime = a.Started.UnixMilli()
	}
	if !a.BackoffUntil.IsZero() && a.BackoffUntil.After(s.Built) {
		t := a.BackoffUntil.UTC()
		ai.BackoffDeadline = &t
	}
	if a.State == app.Rejected {
		ai.RejectedMessage = a.Message
	}
	for _, x := range a.Asks {
		ai.Requests = append(ai.Requests, askInfo(p, x))
	}
	for _, x := range a.Allocations {
		ai.Allocations = append(ai.Allocations, allocationInfo(p, x))
	}
	for _, tg := range a.TaskGroups {
		ai.PlaceholderData = append(ai.PlaceholderData, PlaceholderInfo{
			TaskGroupName: tg.Name, Count: int64(tg.Count), MinResource: p.Map(tg.MinResource),
			Replaced: int64(tg.Replaced), TimedOut: int64(tg.TimedOut),
		})
	}
	for _, r := range a.Reserved {
		ai.Reservations = append(ai.Reservations, r.NodeID+"|"+r.AskKey)
	}
	return ai
}

// usageInfo converts resource·seconds per instance type.
func usageInfo(p *snapshot.Partition, u app.Usage) map[string]Resource {
	out := make(map[string]Resource, len(u))
	for inst, v := range u {
		out[inst] = p.Map(v)
	}
	return out
}

func askInfo(p *snapshot.Partition, x *snapshot.Ask) AskInfo {
	ai := AskInfo{
		AllocationKey: x.Key, AllocationTags: strMap(x.Tags), RequestTime: nanos(x.Created),
		Resource: p.Map(x.Res), Priority: strconv.Itoa(int(x.Priority)), RequiredNodeID: x.RequiredNode,
		ApplicationID: x.AppID, Placeholder: x.Placeholder, TaskGroupName: x.TaskGroup,
		AllocationLog: []AllocationLog{}, Originator: x.Originator, TriggeredPreemption: x.TriggeredPreemption,
		SchedulingAttempted: x.Why.Kind != app.NotTried, TriggeredScaleUp: x.ScaleUp,
		PendingReason: ReasonInfo{Reason: x.Why.Kind.String(), Object: x.Why.Object},
	}
	for _, e := range x.Log {
		ai.AllocationLog = append(ai.AllocationLog, AllocationLog{
			Message: reasonMessage(e.Reason), LastOccurrence: nanos(e.Last), Count: int32(min(e.Count, math.MaxInt32)),
		})
	}
	return ai
}

func allocationInfo(p *snapshot.Partition, x *snapshot.Allocation) AllocationInfo {
	ai := AllocationInfo{
		AllocationKey: x.Key, AllocationTags: strMap(x.Tags), RequestTime: nanos(x.Created),
		AllocationTime: nanos(x.Allocated), Resource: p.Map(x.Res), Priority: strconv.Itoa(int(x.Priority)),
		NodeID: x.NodeID, ApplicationID: x.AppID, Placeholder: x.Placeholder, PlaceholderUsed: x.PlaceholderUsed,
		TaskGroupName: x.TaskGroup, Originator: x.Originator, Preempted: x.Preempted,
	}
	if !x.Created.IsZero() && !x.Allocated.IsZero() {
		ai.AllocationDelay = x.Allocated.Sub(x.Created).Nanoseconds()
	}
	return ai
}

func nodeInfo(p *snapshot.Partition, n *snapshot.Node) NodeInfo {
	ni := NodeInfo{
		NodeID: n.ID, HostName: n.Attributes[common.HostName], RackName: n.Attributes[common.RackName],
		Attributes: strMap(n.Attributes), Capacity: p.Map(n.Capacity), Allocated: p.Map(n.Allocated),
		Occupied: p.Map(n.Occupied), Available: p.Map(n.Available), Utilized: percent(p, n.Allocated, n.Capacity),
		Allocations: make([]AllocationInfo, 0, len(n.Allocations)), ForeignAllocations: make([]ForeignInfo, 0, len(n.Foreign)),
		Schedulable: n.Schedulable, IsReserved: n.ReservedFor != nil, Reservations: []string{},
	}
	for _, x := range n.Allocations {
		ni.Allocations = append(ni.Allocations, allocationInfo(p, x))
	}
	for _, f := range n.Foreign {
		ni.ForeignAllocations = append(ni.ForeignAllocations, ForeignInfo{
			AllocationKey: f.Key, AllocationTags: strMap(f.Tags), AllocationTime: nanos(f.Created), Resource: p.Map(f.Res),
			Priority: strconv.Itoa(int(f.Priority)), NodeID: n.ID, Preemptable: f.Preemptable,
		})
	}
	if r := n.ReservedFor; r != nil {
		ni.Reservations = append(ni.Reservations, r.AppID+"|"+r.AskKey)
	}
	return ni
}

// displayOrder sorts resource names as the web UI shows them: memory,
// vcore, pods, ephemeral-storage, then alphabetically.
func displayOrder(names []string) {
	rank := func(n string) int {
		switch n {
		case "memory":
			return 0
		case "vcore":
			return 1
		case "pods":
			return 2
		case "ephemeral-storage":
			return 3
		}
		return 4
	}
	slices.SortFunc(names, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
}

func nodeUtilizations(s *snapshot.Snapshot, p *snapshot.Partition) NodesUtilInfo {
	out := NodesUtilInfo{ClusterID: p.RMID, Partition: p.Name, Utilizations: []NodeUtilType{}}
	var types []string
	index := map[string]int{}
	for i, v := range p.Capacity {
		if v > 0 {
			types = append(types, p.ResourceName(i))
			index[p.ResourceName(i)] = i
		}
	}
	displayOrder(types)
	for _, t := range types {
		i := index[t]
		buckets := make([]NodeUtilBucket, 10)
		for b := range buckets {
			buckets[b] = NodeUtilBucket{BucketName: strconv.Itoa(b*10) + "-" + strconv.Itoa(b*10+10) + "%", NodeNames: []string{}}
		}
		for _, n := range p.Nodes {
			if n.Capacity[i] <= 0 {
				continue
			}
			b := int(float64(n.Allocated[i]) * 10 / float64(n.Capacity[i]))
			b = max(0, min(9, b))
			buckets[b].NumOfNodes++
			buckets[b].NodeNames = append(buckets[b].NodeNames, n.ID)
		}
		out.Utilizations = append(out.Utilizations, NodeUtilType{Type: t, Utilization: buckets})
	}
	return out
}
