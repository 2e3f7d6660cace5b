package borg

// Special values shared by both trace versions.
const (
	// TimeAfterWindow is the time the traces give to events that happen after
	// the end of the trace window (2^63-1 µs). Time 0 means "before the window".
	TimeAfterWindow int64 = 1<<63 - 1
	// NoMachine is the machine ID of a task that is not placed on a machine.
	NoMachine int64 = 0
	// DedicatedMachine is the 2019 machine ID of an instance on a dedicated machine.
	DedicatedMachine int64 = -1
	// NoAllocIndex is the 2019 alloc_instance_index of a task not running in an alloc.
	NoAllocIndex int64 = -1
)

// Fields is a set of optional record fields, used to say which ones the
// source left empty.
//
// In the 2011 CSV an empty field means the value is unknown. The 2019 JSON
// export also omits fields whose value is zero, so there an absent field
// reads as zero and may simply have been zero.
type Fields uint16

// Optional fields.
const (
	FieldPlatform Fields = 1 << iota
	FieldCPU
	FieldMemory
	FieldDisk
	FieldMachine
	FieldUser
	FieldSchedClass
	FieldPriority
	FieldDifferentMachines
	FieldJobName
	FieldLogicalJobName
	FieldSwitch
)

// Has reports whether every field of f2 is in f.
func (f Fields) Has(f2 Fields) bool { return f&f2 == f2 }

// MachineEvent is a machine added to, removed from or updated in the cell.
// CPU and Memory are normalised capacities (the largest machine is 1.0).
type MachineEvent struct {
	Time      int64 // µs since the start of the trace
	MachineID int64
	Type      MachineEventType
	Platform  string // hashed platform (microarchitecture + board)
	CPU       float64
	Memory    float64
	Absent    Fields // which of Platform, CPU, Memory (and 2019 Switch) the source left empty

	// 2019 only.
	Switch  string      // hashed top-of-rack switch
	Missing MissingInfo // missing_data_reason
}

// JobEvent is a lifecycle event of a job (2011) or collection (2019).
type JobEvent struct {
	Time           int64 // µs since the start of the trace
	Missing        MissingInfo
	JobID          int64
	Type           EventType
	User           string // hashed
	SchedClass     int8   // latency sensitivity, 0 (least) … 3 (most)
	JobName        string // hashed
	LogicalJobName string // hashed
	Absent         Fields // which of User, SchedClass, JobName, LogicalJobName (and 2019 Priority) were empty

	// 2019 only (zero for 2011 records).
	CollectionType     CollectionType
	Priority           int32 // the 2011 trace carries priority on tasks only
	AllocCollectionID  int64 // alloc set the job runs in, 0 if none
	ParentCollectionID int64
	StartAfter         []int64 // collections that must finish before this one starts
	MaxPerMachine      int32   // 0 = unlimited
	MaxPerSwitch       int32   // 0 = unlimited
	VerticalScaling    VerticalScaling
	Scheduler          Scheduler
}

// TaskEvent is a lifecycle event of a task (2011) or instance (2019).
// Requests are normalised like machine capacities.
type TaskEvent struct {
	Time              int64 // µs since the start of the trace
	Missing           MissingInfo
	JobID             int64
	TaskIndex         int64
	MachineID         int64 // NoMachine when not placed
	Type              EventType
	User              string // hashed; 2011 only
	SchedClass        int8
	Priority          int32 // 2011: 0 … 11; 2019: 0 … about 450
	CPURequest        float64
	MemRequest        float64
	DiskRequest       float64 // 2011 only
	DifferentMachines bool    // 2011: tasks of the job must run on distinct machines
	Absent            Fields  // which optional fields the source left empty

	// 2019 only (zero for 2011 records).
	CollectionType     CollectionType
	AllocCollectionID  int64
	AllocInstanceIndex int64 // NoAllocIndex when not in an alloc
	Constraints        []Constraint
}

// Constraint is a 2019 placement constraint on machine attributes.
type Constraint struct {
	Name     string // hashed attribute name
	Value    string
	Relation Relation
}
