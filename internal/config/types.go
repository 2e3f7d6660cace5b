package config

// The YAML keys are the lower-cased Go field names of the reference
// implementation; the JSON names are the Go field names themselves, as the
// reference serves them on GET /ws/v1/config. Fields tagged `yaml:"-"` are
// derived by Parse and are not part of the configuration text.

// SchedulerConfig is a whole queues.yaml document.
type SchedulerConfig struct {
	Partitions []PartitionConfig `yaml:"partitions" json:"Partitions"`
	// Checksum is the uppercase hex SHA-256 of the configuration text with
	// any top-level checksum line removed. A checksum key in the input is
	// tolerated and replaced by the computed value.
	Checksum string `yaml:"checksum,omitempty" json:"Checksum,omitempty"`

	// Warnings lists things Parse accepted but that are probably mistakes
	// (unknown property keys, deprecated values, ignored settings).
	Warnings []Problem `yaml:"-" json:"-"`
}

// PartitionConfig is one partition: a queue tree with its placement rules
// and partition-wide policies.
type PartitionConfig struct {
	Name              string                  `yaml:"name" json:"Name"`
	Queues            []QueueConfig           `yaml:"queues" json:"Queues"`
	PlacementRules    []PlacementRule         `yaml:"placementrules,omitempty" json:"PlacementRules,omitempty"`
	Limits            []Limit                 `yaml:"limits,omitempty" json:"Limits,omitempty"`
	Preemption        PartitionPreemption     `yaml:"preemption" json:"Preemption"`
	NodeSortPolicy    NodeSortPolicy          `yaml:"nodesortpolicy" json:"NodeSortPolicy"`
	UserGroupResolver UserGroupResolverConfig `yaml:"usergroupresolver,omitempty" json:"UserGroupResolver"`
}

// PartitionPreemption holds the partition's preemption switches. After
// Parse, Enabled defaults to true and QuotaPreemptionEnabled to false.
type PartitionPreemption struct {
	Enabled                bool `yaml:"enabled" json:"Enabled"`
	QuotaPreemptionEnabled bool `yaml:"quotapreemptionenabled" json:"QuotaPreemptionEnabled"`
}

// Node sort policy types.
const (
	NodeSortFair       = "fair"
	NodeSortBinPacking = "binpacking"
)

// NodeSortPolicy selects how nodes are ordered for allocation. After Parse,
// Type is "fair" or "binpacking" and ResourceWeights is never empty
// (default vcore:1, memory:1).
type NodeSortPolicy struct {
	Type            string             `yaml:"type" json:"Type"`
	ResourceWeights map[string]float64 `yaml:"resourceweights,omitempty" json:"ResourceWeights,omitempty"`
}

// User group resolver types.
const (
	ResolverNone = ""
	ResolverOS   = "os"
	ResolverLDAP = "ldap"
	ResolverTest = "test"
)

// UserGroupResolverConfig selects how a user's groups are found when the
// resource manager does not supply them. LDAP settings are not part of the
// queue configuration (they are read from secret files).
type UserGroupResolverConfig struct {
	Type string `yaml:"type,omitempty" json:"type,omitempty"`
}

// QueueConfig is one configured queue and, recursively, its children.
type QueueConfig struct {
	Name            string            `yaml:"name" json:"Name"`
	Parent          bool              `yaml:"parent,omitempty" json:"Parent,omitempty"`
	Resources       Resources         `yaml:"resources,omitempty" json:"Resources,omitzero"`
	MaxApplications uint64            `yaml:"maxapplications,omitempty" json:"MaxApplications,omitempty"`
	Properties      map[string]string `yaml:"properties,omitempty" json:"Properties,omitempty"`
	AdminACL        string            `yaml:"adminacl,omitempty" json:"AdminACL,omitempty"`
	SubmitACL       string            `yaml:"submitacl,omitempty" json:"SubmitACL,omitempty"`
	ChildTemplate   ChildTemplate     `yaml:"childtemplate,omitempty" json:"ChildTemplate,omitzero"`
	Queues          []QueueConfig     `yaml:"queues,omitempty" json:"Queues,omitempty"`
	Limits          []Limit           `yaml:"limits,omitempty" json:"Limits,omitempty"`

	// Path is the full queue path, e.g. "root.a.b".
	Path string `yaml:"-" json:"-"`
	// Guaranteed and Max are the parsed resources (vcore in millicores,
	// memory in bytes). A nil map means nothing was configured; a name
	// present with 0 is distinct from an absent name (absent in Max means
	// unlimited, 0 means that resource is unavailable).
	Guaranteed Quantities `yaml:"-" json:"-"`
	Max        Quantities `yaml:"-" json:"-"`
	// Submit and Admin are the parsed ACLs.
	Submit ACL `yaml:"-" json:"-"`
	Admin  ACL `yaml:"-" json:"-"`
	// Effective is the typed property set this queue runs with: its own
	// properties merged over the filtered properties of its parent (§1.5),
	// defaults for everything unset.
	Effective Properties `yaml:"-" json:"-"`
	// Inherited is the raw property map Effective was built from.
	Inherited map[string]string `yaml:"-" json:"-"`
	// Template is the child template that dynamic leaf queues created under
	// this queue use: its own when set, else the nearest ancestor's; nil if
	// none applies.
	Template *ChildTemplate `yaml:"-" json:"-"`
}

// IsLeaf reports whether the queue is a leaf: not forced to be a parent and
// without children.
func (q *QueueConfig) IsLeaf() bool { return !q.Parent && len(q.Queues) == 0 }

// Resources holds configured quantity strings per resource name.
type Resources struct {
	Guaranteed map[string]string `yaml:"guaranteed,omitempty" json:"Guaranteed,omitempty"`
	Max        map[string]string `yaml:"max,omitempty" json:"Max,omitempty"`
}

// ChildTemplate configures dynamic leaf queues created under a parent.
type ChildTemplate struct {
	MaxApplications uint64            `yaml:"maxapplications,omitempty" json:"MaxApplications,omitempty"`
	Properties      map[string]string `yaml:"properties,omitempty" json:"Properties,omitempty"`
	Resources       Resources         `yaml:"resources,omitempty" json:"Resources,omitzero"`

	// Guaranteed and Max are the parsed template resources with zero values
	// dropped, as the reference does for templates (§1.6).
	Guaranteed Quantities `yaml:"-" json:"-"`
	Max        Quantities `yaml:"-" json:"-"`
	// Effective is the typed form of Properties over the defaults (dynamic
	// queues inherit nothing from their parent).
	Effective Properties `yaml:"-" json:"-"`
}

// IsEmpty reports whether no template field is set (an empty template is no
// template).
func (t *ChildTemplate) IsEmpty() bool { return t.IsZero() }

// IsZero is IsEmpty; it lets YAML and JSON omit an empty template.
func (t ChildTemplate) IsZero() bool {
	return t.MaxApplications == 0 && len(t.Properties) == 0 &&
		len(t.Resources.Guaranteed) == 0 && len(t.Resources.Max) == 0
}

// Limit is one user/group limit entry of a queue or partition. The limit
// applies to every listed user and group individually.
type Limit struct {
	Limit           string            `yaml:"limit,omitempty" json:"Limit,omitempty"`
	Users           []string          `yaml:"users,omitempty" json:"Users,omitempty"`
	Groups          []string          `yaml:"groups,omitempty" json:"Groups,omitempty"`
	MaxResources    map[string]string `yaml:"maxresources,omitempty" json:"MaxResources,omitempty"`
	MaxApplications uint64            `yaml:"maxapplications,omitempty" json:"MaxApplications,omitempty"`

	// Max is MaxResources parsed; nil when none configured.
	Max Quantities `yaml:"-" json:"-"`
}

// Placement rule names that may be configured.
const (
	RuleProvided = "provided"
	RuleUser     = "user"
	RuleFixed    = "fixed"
	RuleTag      = "tag"
	// RuleRecovery is always appended by the placement manager and cannot be
	// configured.
	RuleRecovery = "recovery"
)

// PlacementRule is one rule of the placement chain, optionally with a
// parent rule that is evaluated first.
type PlacementRule struct {
	Name   string         `yaml:"name" json:"Name"`
	Parent *PlacementRule `yaml:"parent,omitempty" json:"Parent,omitempty"`
	Create bool           `yaml:"create,omitempty" json:"Create,omitempty"`
	Filter Filter         `yaml:"filter,omitempty" json:"Filter,omitzero"`
	Value  string         `yaml:"value,omitempty" json:"Value,omitempty"`
}

// Filter types.
const (
	FilterAllow = "allow"
	FilterDeny  = "deny"
)

// Filter limits which users and groups a placement rule applies to. After
// Parse, Type is "allow" or "deny".
type Filter struct {
	Type   string   `yaml:"type,omitempty" json:"Type,omitempty"`
	Users  []string `yaml:"users,omitempty" json:"Users,omitempty"`
	Groups []string `yaml:"groups,omitempty" json:"Groups,omitempty"`
}

// RootQueue is the name of the root of every partition's queue tree.
const RootQueue = "root"

// RecoveryQueue is the name of the recovery leaf under root; it is created
// by the scheduler and cannot be configured.
const RecoveryQueue = "@recovery@"

// DefaultPartition is the normalised name of the default partition.
const DefaultPartition = "default"
