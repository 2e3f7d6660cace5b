package rest

import (
	"time"

	"github.com/paddock-sched/paddock/internal/core/usage"
	"github.com/paddock-sched/paddock/internal/health"
)

// The JSON shapes of the reference's REST API (reference §5). Field names
// and units follow it exactly: timestamps are Unix nanoseconds except the
// application startTime (milliseconds); resources are maps of integers
// (vcore in millicores, memory in bytes). Lists are [] and never null, and
// fields the web UI needs are always present (web-ui-contract.md §2).

// Resource is a resource map.
type Resource = map[string]int64

// ErrorInfo is the error body.
type ErrorInfo struct {
	StatusCode  int    `json:"status_code"`
	Message     string `json:"message"`
	Description string `json:"description"`
}

// ClusterInfo is one entry of /ws/v1/clusters (one per partition).
type ClusterInfo struct {
	StartTime          int64               `json:"startTime"`
	RMBuildInformation []map[string]string `json:"rmBuildInformation"`
	Partition          string              `json:"partition"`
	ClusterName        string              `json:"clusterName"`
}

// PartitionInfo is one entry of /ws/v1/partitions.
type PartitionInfo struct {
	ClusterID               string            `json:"clusterId"`
	Name                    string            `json:"name"`
	Capacity                PartitionCapacity `json:"capacity"`
	NodeSortingPolicy       NodeSortingPolicy `json:"nodeSortingPolicy"`
	PreemptionEnabled       bool              `json:"preemptionEnabled"`
	QuotaPreemptionEnabled  bool              `json:"quotaPreemptionEnabled"`
	TotalNodes              int               `json:"totalNodes"`
	Applications            map[string]int    `json:"applications"`
	TotalContainers         int               `json:"totalContainers"`
	State                   string            `json:"state"`
	LastStateTransitionTime int64             `json:"lastStateTransitionTime"`
}

// PartitionCapacity is a partition's size and use.
type PartitionCapacity struct {
	Capacity     Resource `json:"capacity"`
	UsedCapacity Resource `json:"usedCapacity"`
	Utilization  Resource `json:"utilization"`
}

// NodeSortingPolicy is the partition's node order.
type NodeSortingPolicy struct {
	Type            string             `json:"type"`
	ResourceWeights map[string]float64 `json:"resourceWeights"`
}

// PlacementRuleInfo is one placement rule.
type PlacementRuleInfo struct {
	Name       string             `json:"name"`
	Parameters map[string]string  `json:"parameters,omitempty"`
	Filter     *FilterInfo        `json:"filter,omitempty"`
	ParentRule *PlacementRuleInfo `json:"parentRule,omitempty"`
}

// FilterInfo is a placement rule's user and group filter.
type FilterInfo struct {
	Type      string   `json:"type"`
	UserList  []string `json:"userList,omitempty"`
	GroupList []string `json:"groupList,omitempty"`
	UserExp   string   `json:"userExp,omitempty"`
	GroupExp  string   `json:"groupExp,omitempty"`
}

// QueueInfo is one queue (PartitionQueueDAOInfo).
type QueueInfo struct {
	QueueName              string            `json:"queuename"`
	Status                 string            `json:"status"`
	Partition              string            `json:"partition"`
	PendingResource        Resource          `json:"pendingResource"`
	MaxResource            Resource          `json:"maxResource,omitempty"`
	GuaranteedResource     Resource          `json:"guaranteedResource,omitempty"`
	AllocatedResource      Resource          `json:"allocatedResource"`
	PreemptingResource     Resource          `json:"preemptingResource"`
	Headroom               Resource          `json:"headroom,omitempty"`
	IsLeaf                 bool              `json:"isLeaf"`
	IsManaged              bool              `json:"isManaged"`
	Properties             map[string]string `json:"properties"`
	Parent                 string            `json:"parent"`
	Template               *TemplateInfo     `json:"template,omitempty"`
	Children               []QueueInfo       `json:"children"`
	ChildNames             []string          `json:"childNames"`
	AbsUsedCapacity        Resource          `json:"absUsedCapacity"`
	MaxRunningApps         uint64            `json:"maxRunningApps"`
	RunningApps            uint64            `json:"runningApps"`
	CurrentPriority        int32             `json:"currentPriority"`
	AllocatingAcceptedApps []string          `json:"allocatingAcceptedApps"`
	SortingPolicy          string            `json:"sortingPolicy"`
	PrioritySorting        bool              `json:"prioritySorting"`
	PreemptionEnabled      bool              `json:"preemptionEnabled"`
	IsPreemptionFence      bool              `json:"isPreemptionFence"`
	PreemptionDelay        string            `json:"preemptionDelay"`
	QuotaPreemptionDelay   string            `json:"quotaPreemptionDelay"`
	IsPriorityFence        bool              `json:"isPriorityFence"`
	PriorityOffset         int32             `json:"priorityOffset"`
}

// TemplateInfo is a queue's child template.
type TemplateInfo struct {
	MaxApplications    uint64            `json:"maxApplications"`
	MaxResource        Resource          `json:"maxResource,omitempty"`
	GuaranteedResource Resource          `json:"guaranteedResource,omitempty"`
	Properties         map[string]string `json:"properties,omitempty"`
}

// AppInfo is one application (ApplicationDAOInfo).
type AppInfo struct {
	ApplicationID      string            `json:"applicationID"`
	UsedResource       Resource          `json:"usedResource"`
	MaxUsedResource    Resource          `json:"maxUsedResource"`
	PendingResource    Resource          `json:"pendingResource"`
	Partition          string            `json:"partition"`
	QueueName          string            `json:"queueName"`
	SubmissionTime     int64             `json:"submissionTime"`
	FinishedTime       *int64            `json:"finishedTime"`
	Requests           []AskInfo         `json:"requests"`
	Allocations        []AllocationInfo  `json:"allocations"`
	State              string            `json:"applicationState"`
	User               string            `json:"user"`
	Groups             []string          `json:"groups"`
	RejectedMessage    string            `json:"rejectedMessage"`
	StateLog           []StateInfo       `json:"stateLog"`
	PlaceholderData    []PlaceholderInfo `json:"placeholderData"`
	HasReserved        bool              `json:"hasReserved"`
	Reservations       []string          `json:"reservations"`
	MaxRequestPriority int32             `json:"maxRequestPriority"`
	StartTime          int64             `json:"startTime"`
	ResourceHistory    ResourceHistory   `json:"resourceHistory"`
	BackoffDeadline    *time.Time        `json:"backoffDeadline"`
}

// ResourceHistory is what an application's ended allocations held over
// time: instance type -> resource name -> resource·seconds.
type ResourceHistory struct {
	ResourceUsage       map[string]Resource `json:"resourceUsage"`
	PreemptedResource   map[string]Resource `json:"preemptedResource"`
	PlaceholderResource map[string]Resource `json:"placeholderResource"`
}

// StateInfo is one state log entry.
type StateInfo struct {
	Time  int64  `json:"time"`
	State string `json:"applicationState"`
}

// PlaceholderInfo is a gang task group.
type PlaceholderInfo struct {
	TaskGroupName string   `json:"taskGroupName"`
	Count         int64    `json:"count"`
	MinResource   Resource `json:"minResource"`
	Replaced      int64    `json:"replaced"`
	TimedOut      int64    `json:"timedout"`
}

// AskInfo is a pending ask (AllocationAskDAOInfo). PendingReason is
// Paddock's typed reason; AllocationLog the history of reasons as text.
type AskInfo struct {
	AllocationKey       string            `json:"allocationKey"`
	AllocationTags      map[string]string `json:"allocationTags"`
	RequestTime         int64             `json:"requestTime"`
	Resource            Resource          `json:"resource"`
	Priority            string            `json:"priority"`
	RequiredNodeID      string            `json:"requiredNodeId"`
	ApplicationID       string            `json:"applicationId"`
	Placeholder         bool              `json:"placeholder"`
	TaskGroupName       string            `json:"taskGroupName"`
	AllocationLog       []AllocationLog   `json:"allocationLog"`
	TriggeredPreemption bool              `json:"triggeredPreemption"`
	Originator          bool              `json:"originator"`
	SchedulingAttempted bool              `json:"schedulingAttempted"`
	TriggeredScaleUp    bool              `json:"triggeredScaleUp"`
	PendingReason       ReasonInfo        `json:"pendingReason"`
}

// AllocationLog is one allocation log entry.
type AllocationLog struct {
	Message        string `json:"message"`
	LastOccurrence int64  `json:"lastOccurrence"`
	Count          int32  `json:"count"`
}

// ReasonInfo is a typed pending reason: its kind and the object it names
// (a queue path, user, or node).
type ReasonInfo struct {
	Reason string `json:"reason"`
	Object string `json:"object,omitempty"`
}

// AllocationInfo is an allocation (AllocationDAOInfo).
type AllocationInfo struct {
	AllocationKey   string            `json:"allocationKey"`
	AllocationTags  map[string]string `json:"allocationTags"`
	RequestTime     int64             `json:"requestTime"`
	AllocationTime  int64             `json:"allocationTime"`
	AllocationDelay int64             `json:"allocationDelay"`
	Resource        Resource          `json:"resource"`
	Priority        string            `json:"priority"`
	NodeID          string            `json:"nodeId"`
	ApplicationID   string            `json:"applicationId"`
	Placeholder     bool              `json:"placeholder"`
	PlaceholderUsed bool              `json:"placeholderUsed"`
	TaskGroupName   string            `json:"taskGroupName"`
	Preempted       bool              `json:"preempted"`
	Originator      bool              `json:"originator"`
}

// ForeignInfo is a foreign allocation on a node.
type ForeignInfo struct {
	AllocationKey  string            `json:"allocationKey"`
	AllocationTags map[string]string `json:"allocationTags"`
	AllocationTime int64             `json:"allocationTime"`
	Resource       Resource          `json:"resource"`
	Priority       string            `json:"priority"`
	NodeID         string            `json:"nodeId"`
	ApplicationID  string            `json:"applicationId"`
	Preemptable    bool              `json:"preemptable"`
}

// NodeInfo is one node (NodeDAOInfo).
type NodeInfo struct {
	NodeID             string            `json:"nodeID"`
	HostName           string            `json:"hostName"`
	RackName           string            `json:"rackName"`
	Attributes         map[string]string `json:"attributes"`
	Capacity           Resource          `json:"capacity"`
	Allocated          Resource          `json:"allocated"`
	Occupied           Resource          `json:"occupied"`
	Available          Resource          `json:"available"`
	Utilized           Resource          `json:"utilized"`
	Allocations        []AllocationInfo  `json:"allocations"`
	ForeignAllocations []ForeignInfo     `json:"foreignAllocations"`
	Schedulable        bool              `json:"schedulable"`
	IsReserved         bool              `json:"isReserved"`
	Reservations       []string          `json:"reservations"`
}

// NodesUtilInfo is one partition of /ws/v1/scheduler/node-utilizations.
type NodesUtilInfo struct {
	ClusterID    string         `json:"clusterId"`
	Partition    string         `json:"partition"`
	Utilizations []NodeUtilType `json:"utilizations"`
}

// NodeUtilType is the utilisation buckets of one resource type.
type NodeUtilType struct {
	Type        string           `json:"type"`
	Utilization []NodeUtilBucket `json:"utilization"`
}

// NodeUtilBucket is one 10 % bucket.
type NodeUtilBucket struct {
	BucketName string   `json:"bucketName"`
	NumOfNodes int64    `json:"numOfNodes"`
	NodeNames  []string `json:"nodeNames"`
}

// AppHistoryInfo and ContainerHistoryInfo are history points (counts are
// strings, as in the reference).
type AppHistoryInfo struct {
	Timestamp         int64  `json:"timestamp"`
	TotalApplications string `json:"totalApplications"`
}

// ContainerHistoryInfo is a container count point.
type ContainerHistoryInfo struct {
	Timestamp       int64  `json:"timestamp"`
	TotalContainers string `json:"totalContainers"`
}

// ValidateInfo is the validate-conf answer.
type ValidateInfo struct {
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason"`
}

// WhyInfo is Paddock's why view of an application's pending asks.
type WhyInfo struct {
	ApplicationID string    `json:"applicationID"`
	Partition     string    `json:"partition"`
	QueueName     string    `json:"queueName"`
	State         string    `json:"applicationState"`
	Generation    uint64    `json:"generation"`
	SnapshotTime  int64     `json:"snapshotTime"`
	BackoffUntil  int64     `json:"backoffUntil,omitempty"`
	Asks          []WhyAsk  `json:"asks"`
	Nodes         NodeCount `json:"nodes"`
}

// NodeCount counts the partition's nodes: all, those taking no new work
// (draining) and those reserved for an ask.
type NodeCount struct {
	Total         int `json:"total"`
	Unschedulable int `json:"unschedulable"`
	Reserved      int `json:"reserved"`
}

// WhyAsk explains one pending ask.
type WhyAsk struct {
	AllocationKey string   `json:"allocationKey"`
	Resource      Resource `json:"resource"`
	Priority      string   `json:"priority"`
	RequestTime   int64    `json:"requestTime"`
	Reason        string   `json:"reason"`
	Object        string   `json:"object,omitempty"`
	Message       string   `json:"message"`
	// ShortOn counts, per resource, the schedulable unreserved nodes whose
	// free amount is below the ask's (computed from the snapshot).
	ShortOn map[string]int `json:"shortOn"`
	// FitNodes counts the schedulable unreserved nodes the ask fits now.
	FitNodes int `json:"fitNodes"`
}

// StateDump is /debug/fullstatedump.
type StateDump struct {
	Timestamp        int64                  `json:"timestamp"`
	Partitions       []PartitionInfo        `json:"partitions"`
	Applications     []AppInfo              `json:"applications"`
	AppHistory       []AppHistoryInfo       `json:"appHistory"`
	Nodes            []PartitionNodes       `json:"nodes"`
	ClusterInfo      []ClusterInfo          `json:"clusterInfo"`
	ContainerHistory []ContainerHistoryInfo `json:"containerHistory"`
	Queues           []QueueInfo            `json:"queues"`
	RMDiagnostics    map[string]any         `json:"rmDiagnostics"`
	LogLevel         string                 `json:"logLevel"`
	Config           any                    `json:"config"`
	PlacementRules   []PartitionRules       `json:"placementRules"`
	EventStreams     []EventStreamInfo      `json:"eventStreams"`
	Health           *health.Result         `json:"health,omitempty"`
	Users            []usage.UserDAO        `json:"users"`
	Groups           []usage.GroupDAO       `json:"groups"`
}

// EventStreamInfo is an open event stream in a state dump. The reference
// serialises its Go struct without tags: capitalised keys, CreatedAt as
// RFC 3339.
type EventStreamInfo struct {
	Name      string
	CreatedAt time.Time
}

// PartitionNodes lists one partition's nodes in a state dump.
type PartitionNodes struct {
	PartitionName string     `json:"partitionName"`
	NodesInfo     []NodeInfo `json:"nodesInfo"`
}

// PartitionRules lists one partition's placement rules in a state dump.
type PartitionRules struct {
	Partition string              `json:"partition"`
	Rules     []PlacementRuleInfo `json:"rules"`
}
