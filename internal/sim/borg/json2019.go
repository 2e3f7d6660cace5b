package borg

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// The 2019 trace's BigQuery JSON export writes one object per line, INT64
// columns as JSON strings, and omits null and zero fields. The types below
// accept integers as strings or numbers and remember whether a field was
// present at all.

type jsInt struct {
	v   int64
	set bool
}

func (n *jsInt) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = b[1 : len(b)-1]
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("bad integer %s", b)
	}
	n.v, n.set = v, true
	return nil
}

type jsFloat struct {
	v   float64
	set bool
}

func (n *jsFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = b[1 : len(b)-1]
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("bad number %s", b)
	}
	n.v, n.set = v, true
	return nil
}

type jsResources struct {
	CPUs   jsFloat `json:"cpus"`
	Memory jsFloat `json:"memory"`
}

// jsCommon holds the fields collection and instance events share.
type jsCommon struct {
	Time              jsInt `json:"time"`
	Type              jsInt `json:"type"`
	CollectionID      jsInt `json:"collection_id"`
	SchedulingClass   jsInt `json:"scheduling_class"`
	MissingType       jsInt `json:"missing_type"`
	CollectionType    jsInt `json:"collection_type"`
	Priority          jsInt `json:"priority"`
	AllocCollectionID jsInt `json:"alloc_collection_id"`
}

type common struct {
	time              int64
	typ               EventType
	collectionID      int64
	schedClass        int8
	missing           MissingInfo
	collectionType    CollectionType
	priority          int32
	allocCollectionID int64
	absent            Fields
}

func (c *jsCommon) check() (common, error) {
	var out common
	var err error
	if out.time, err = jsTime(c.Time); err != nil {
		return out, err
	}
	var ok bool
	if out.typ, ok = EventTypeFrom2019(c.Type.v); !ok {
		return out, fmt.Errorf("unknown event type %d", c.Type.v)
	}
	if !c.CollectionID.set || c.CollectionID.v == 0 {
		return out, errors.New("missing collection_id")
	}
	out.collectionID = c.CollectionID.v
	if c.SchedulingClass.v < 0 || c.SchedulingClass.v > 3 {
		return out, fmt.Errorf("scheduling_class %d out of range 0-3", c.SchedulingClass.v)
	}
	out.schedClass = int8(c.SchedulingClass.v)
	if !c.SchedulingClass.set {
		out.absent |= FieldSchedClass
	}
	if out.missing, ok = MissingInfoFrom2019(c.MissingType.v); !ok {
		return out, fmt.Errorf("unknown missing_type %d", c.MissingType.v)
	}
	if c.CollectionType.v != 0 && c.CollectionType.v != 1 {
		return out, fmt.Errorf("unknown collection_type %d", c.CollectionType.v)
	}
	out.collectionType = CollectionType(c.CollectionType.v)
	if c.Priority.v < 0 || c.Priority.v > math.MaxInt32 {
		return out, fmt.Errorf("priority %d out of range", c.Priority.v)
	}
	out.priority = int32(c.Priority.v)
	if !c.Priority.set {
		out.absent |= FieldPriority
	}
	out.allocCollectionID = c.AllocCollectionID.v
	return out, nil
}

func jsTime(t jsInt) (int64, error) {
	if t.v < 0 {
		return 0, fmt.Errorf("negative time %d", t.v)
	}
	return t.v, nil
}

func int32Field(n jsInt, name string) (int32, error) {
	if n.v < math.MinInt32 || n.v > math.MaxInt32 {
		return 0, fmt.Errorf("%s %d out of range", name, n.v)
	}
	return int32(n.v), nil
}

// jsonValuePrefix starts the error of a well-formed JSON row with a bad
// value.
const jsonValuePrefix = "bad JSON: "

// unmarshalLine decodes one JSON object, naming the problem on failure.
func unmarshalLine(line []byte, v any) error {
	if err := json.Unmarshal(line, v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("bad JSON at byte %d: %v", se.Offset, err)
		}
		return errors.New(jsonValuePrefix + err.Error())
	}
	return nil
}

// collection2019 decodes collection_events rows.
type collection2019 struct{ intern interner }

type jsCollection struct {
	jsCommon
	User                  string  `json:"user"`
	CollectionName        string  `json:"collection_name"`
	CollectionLogicalName string  `json:"collection_logical_name"`
	ParentCollectionID    jsInt   `json:"parent_collection_id"`
	StartAfter            []jsInt `json:"start_after_collection_ids"`
	MaxPerMachine         jsInt   `json:"max_per_machine"`
	MaxPerSwitch          jsInt   `json:"max_per_switch"`
	VerticalScaling       jsInt   `json:"vertical_scaling"`
	Scheduler             jsInt   `json:"scheduler"`
}

func (d *collection2019) decode(line []byte, ev *JobEvent) (int64, error) {
	var js jsCollection
	if err := unmarshalLine(line, &js); err != nil {
		return 0, err
	}
	c, err := js.check()
	if err != nil {
		return 0, err
	}
	*ev = JobEvent{
		Time: c.time, Missing: c.missing, JobID: c.collectionID, Type: c.typ,
		SchedClass: c.schedClass, JobName: js.CollectionName, LogicalJobName: js.CollectionLogicalName,
		Absent: c.absent, CollectionType: c.collectionType, Priority: c.priority,
		AllocCollectionID: c.allocCollectionID, ParentCollectionID: js.ParentCollectionID.v,
	}
	if js.User == "" {
		ev.Absent |= FieldUser
	} else {
		ev.User = d.intern.of([]byte(js.User))
	}
	if js.CollectionName == "" {
		ev.Absent |= FieldJobName
	}
	if js.CollectionLogicalName == "" {
		ev.Absent |= FieldLogicalJobName
	}
	for _, id := range js.StartAfter {
		if id.set {
			ev.StartAfter = append(ev.StartAfter, id.v)
		}
	}
	if ev.MaxPerMachine, err = int32Field(js.MaxPerMachine, "max_per_machine"); err != nil {
		return 0, err
	}
	if ev.MaxPerSwitch, err = int32Field(js.MaxPerSwitch, "max_per_switch"); err != nil {
		return 0, err
	}
	if js.VerticalScaling.v < 0 || js.VerticalScaling.v > 3 {
		return 0, fmt.Errorf("unknown vertical_scaling %d", js.VerticalScaling.v)
	}
	ev.VerticalScaling = VerticalScaling(js.VerticalScaling.v)
	if js.Scheduler.v != 0 && js.Scheduler.v != 1 {
		return 0, fmt.Errorf("unknown scheduler %d", js.Scheduler.v)
	}
	ev.Scheduler = Scheduler(js.Scheduler.v)
	return ev.Time, nil
}

// instance2019 decodes instance_events rows.
type instance2019 struct{}

type jsConstraint struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Relation jsInt  `json:"relation"`
}

type jsInstance struct {
	jsCommon
	InstanceIndex      jsInt          `json:"instance_index"`
	MachineID          jsInt          `json:"machine_id"`
	AllocInstanceIndex jsInt          `json:"alloc_instance_index"`
	ResourceRequest    jsResources    `json:"resource_request"`
	Constraint         []jsConstraint `json:"constraint"`
}

func (d *instance2019) decode(line []byte, ev *TaskEvent) (int64, error) {
	var js jsInstance
	if err := unmarshalLine(line, &js); err != nil {
		return 0, err
	}
	c, err := js.check()
	if err != nil {
		return 0, err
	}
	if js.InstanceIndex.v < 0 {
		return 0, fmt.Errorf("negative instance_index %d", js.InstanceIndex.v)
	}
	*ev = TaskEvent{
		Time: c.time, Missing: c.missing, JobID: c.collectionID, TaskIndex: js.InstanceIndex.v,
		MachineID: js.MachineID.v, Type: c.typ, SchedClass: c.schedClass, Priority: c.priority,
		CPURequest: js.ResourceRequest.CPUs.v, MemRequest: js.ResourceRequest.Memory.v,
		Absent:         c.absent | FieldUser | FieldDisk | FieldDifferentMachines,
		CollectionType: c.collectionType, AllocCollectionID: c.allocCollectionID,
		AllocInstanceIndex: js.AllocInstanceIndex.v,
	}
	if ev.MachineID == NoMachine {
		ev.Absent |= FieldMachine
	}
	if !js.ResourceRequest.CPUs.set {
		ev.Absent |= FieldCPU
	}
	if !js.ResourceRequest.Memory.set {
		ev.Absent |= FieldMemory
	}
	if len(js.Constraint) > 0 {
		ev.Constraints = make([]Constraint, len(js.Constraint))
		for i, jc := range js.Constraint {
			if jc.Relation.v < 0 || jc.Relation.v > int64(RelationNotPresent) {
				return 0, fmt.Errorf("unknown constraint relation %d", jc.Relation.v)
			}
			ev.Constraints[i] = Constraint{Name: jc.Name, Value: jc.Value, Relation: Relation(jc.Relation.v)}
		}
	}
	return ev.Time, nil
}

// machine2019 decodes machine_events rows.
type machine2019 struct{ intern interner }

type jsMachine struct {
	Time              jsInt       `json:"time"`
	MachineID         jsInt       `json:"machine_id"`
	Type              jsInt       `json:"type"`
	SwitchID          string      `json:"switch_id"`
	Capacity          jsResources `json:"capacity"`
	PlatformID        string      `json:"platform_id"`
	MissingDataReason jsInt       `json:"missing_data_reason"`
}

func (d *machine2019) decode(line []byte, ev *MachineEvent) (int64, error) {
	var js jsMachine
	if err := unmarshalLine(line, &js); err != nil {
		return 0, err
	}
	t, err := jsTime(js.Time)
	if err != nil {
		return 0, err
	}
	if js.MachineID.v == 0 {
		return 0, errors.New("missing machine_id")
	}
	typ, ok := MachineEventTypeFrom2019(js.Type.v)
	if !ok {
		return 0, fmt.Errorf("unknown machine event type %d", js.Type.v)
	}
	if js.MissingDataReason.v != 0 && js.MissingDataReason.v != 1 {
		return 0, fmt.Errorf("unknown missing_data_reason %d", js.MissingDataReason.v)
	}
	*ev = MachineEvent{
		Time: t, MachineID: js.MachineID.v, Type: typ,
		CPU: js.Capacity.CPUs.v, Memory: js.Capacity.Memory.v,
		Missing: MissingInfo(js.MissingDataReason.v), // 1 is SNAPSHOT_BUT_NO_TRANSITION in both enums
	}
	if js.PlatformID == "" {
		ev.Absent |= FieldPlatform
	} else {
		ev.Platform = d.intern.of([]byte(js.PlatformID))
	}
	if js.SwitchID == "" {
		ev.Absent |= FieldSwitch
	} else {
		ev.Switch = d.intern.of([]byte(js.SwitchID))
	}
	if !js.Capacity.CPUs.set {
		ev.Absent |= FieldCPU
	}
	if !js.Capacity.Memory.set {
		ev.Absent |= FieldMemory
	}
	return ev.Time, nil
}

// OpenMachineEvents2019 reads the 2019 machine_events table in dir (JSON
// or CSV export, see csv2019.go).
func OpenMachineEvents2019(dir string) (*MachineReader, error) {
	files, err := shards2019(dir, Table2019Machines)
	if err != nil {
		return nil, err
	}
	return &MachineReader{newTableReader[MachineEvent](Table2019Machines, files, newExport2019[MachineEvent](&machine2019{}))}, nil
}

// OpenCollectionEvents2019 reads the 2019 collection_events table in dir
// (JSON or CSV export).
func OpenCollectionEvents2019(dir string) (*JobReader, error) {
	files, err := shards2019(dir, Table2019Jobs)
	if err != nil {
		return nil, err
	}
	return &JobReader{newTableReader[JobEvent](Table2019Jobs, files, newExport2019[JobEvent](&collection2019{}))}, nil
}

// OpenInstanceEvents2019 reads the 2019 instance_events table in dir
// (JSON or CSV export).
func OpenInstanceEvents2019(dir string) (*TaskReader, error) {
	files, err := shards2019(dir, Table2019Tasks)
	if err != nil {
		return nil, err
	}
	return &TaskReader{newTableReader[TaskEvent](Table2019Tasks, files, newExport2019[TaskEvent](&instance2019{}))}, nil
}
