package borg

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestMachineEvents2019(t *testing.T) {
	r, err := OpenMachineEvents2019("testdata/t2019")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAll(t, r.Next)
	want := []MachineEvent{
		{Time: 0, MachineID: 101, Type: MachineAdd, Platform: "plat1", CPU: 0.5, Memory: 0.25, Switch: "sw1"},
		{Time: 1000000, MachineID: 101, Type: MachineUpdate, Platform: "plat1", CPU: 0.5, Memory: 0.5,
			Absent: FieldSwitch, Missing: MissingSnapshotNoTransition},
		{Time: 3000000, MachineID: 101, Type: MachineRemove, Platform: "plat1", Switch: "sw1", Absent: FieldCPU | FieldMemory},
	}
	assertEqual(t, "2019 machine events", got, want)
}

func TestCollectionEvents2019(t *testing.T) {
	r, err := OpenCollectionEvents2019("testdata/t2019")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAll(t, r.Next)
	want := []JobEvent{
		{Time: 0, JobID: 400, Type: EventSubmit, User: "u1", SchedClass: 2, JobName: "cn", LogicalJobName: "cln",
			Priority: 360, ParentCollectionID: 397, StartAfter: []int64{398, 399}, MaxPerMachine: 2,
			VerticalScaling: VerticalScalingAutomated, Scheduler: SchedulerBatch},
		{Time: 1000000, JobID: 400, Type: EventSchedule, User: "u1", SchedClass: 2, Priority: 360,
			Absent: FieldJobName | FieldLogicalJobName},
		{Time: 2000000, Missing: MissingTransitionStep, JobID: 400, Type: EventFinish, CollectionType: CollectionAllocSet,
			Absent: FieldUser | FieldSchedClass | FieldPriority | FieldJobName | FieldLogicalJobName},
	}
	assertEqual(t, "2019 collection events", got, want)
}

func TestInstanceEvents2019(t *testing.T) {
	r, err := OpenInstanceEvents2019("testdata/t2019")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAll(t, r.Next)
	const never = FieldUser | FieldDisk | FieldDifferentMachines // not in the 2019 schema
	want := []TaskEvent{
		{Time: 0, JobID: 400, TaskIndex: 0, Type: EventSubmit, SchedClass: 2, Priority: 360,
			CPURequest: 0.0207, MemRequest: 0.0101, AllocInstanceIndex: NoAllocIndex, Absent: never | FieldMachine,
			Constraints: []Constraint{{"c1", "v1", RelationNotEqual}, {"c2", "", RelationPresent}}},
		{Time: 1000000, JobID: 400, TaskIndex: 0, MachineID: 101, Type: EventSchedule, SchedClass: 2, Priority: 360,
			CPURequest: 0.0207, MemRequest: 0.0101, AllocInstanceIndex: NoAllocIndex, Absent: never},
		// Second shard: a plain file.
		{Time: 1500000, JobID: 400, TaskIndex: 1, Type: EventQueue, Priority: 360,
			Absent: never | FieldMachine | FieldSchedClass | FieldCPU | FieldMemory},
		{Time: 2000000, JobID: 400, TaskIndex: 1, MachineID: DedicatedMachine, Type: EventUpdateRunning, CPURequest: 0.03,
			Absent: never | FieldSchedClass | FieldPriority | FieldMemory},
		// Plain JSON numbers are accepted as well as strings.
		{Time: 2500000, JobID: 400, TaskIndex: 1, Type: EventFinish,
			Absent: never | FieldMachine | FieldSchedClass | FieldPriority | FieldCPU | FieldMemory},
		{Time: 3000000, JobID: 400, TaskIndex: 2, Type: EventKill, AllocCollectionID: 77,
			Absent: never | FieldMachine | FieldSchedClass | FieldPriority | FieldCPU | FieldMemory},
	}
	assertEqual(t, "2019 instance events", got, want)

	st := r.Stats()
	if st.Table != "instance_events" || st.Files != 2 || st.Rows != 6 || st.Malformed != 6 {
		t.Errorf("stats = %+v", st)
	}
	file := filepath.Join("testdata/t2019", "instance_events-000000000001.json")
	wantExamples := []struct {
		line   int64
		reason string
	}{
		{4, "bad JSON at byte 2: invalid character"},
		{5, "bad JSON: bad integer abc"},
		{6, "unknown event type 11"},
		{7, "missing collection_id"},
		{8, "bad JSON: json: cannot unmarshal array"},
	}
	if len(st.Examples) != len(wantExamples) {
		t.Fatalf("examples = %v", st.Examples)
	}
	for i, w := range wantExamples {
		e := st.Examples[i]
		if e.File != file || e.Line != w.line || !strings.HasPrefix(e.Reason, w.reason) {
			t.Errorf("example %d = %v, want %s:%d: %s...", i, e, file, w.line, w.reason)
		}
	}
}

func TestMalformedReasons2019(t *testing.T) {
	instances := []struct{ row, reason string }{
		{`{"time":"3000000","type":"6","collection_id":"400","resource_request":{"cpus":"NaN"}}`, "bad JSON: bad number NaN"},
		{`{"time":"-1","collection_id":"400"}`, "negative time -1"},
		{`{"collection_id":"400","scheduling_class":"4"}`, "scheduling_class 4 out of range 0-3"},
		{`{"collection_id":"400","missing_type":"6"}`, "unknown missing_type 6"},
		{`{"collection_id":"400","collection_type":"2"}`, "unknown collection_type 2"},
		{`{"collection_id":"400","priority":"-3"}`, "priority -3 out of range"},
		{`{"collection_id":"400","instance_index":"-3"}`, "negative instance_index -3"},
		{`{"collection_id":"400","constraint":[{"name":"a","relation":"8"}]}`, "unknown constraint relation 8"},
		{`{"collection_id":"400","time":"9223372036854775808"}`, "bad JSON: bad integer 9223372036854775808"},
		{`{"collection_id":"400"`, "bad JSON at byte 22: unexpected end of JSON input"},
	}
	for _, tt := range instances {
		var d instance2019
		var ev TaskEvent
		if _, err := d.decode([]byte(tt.row), &ev); err == nil || err.Error() != tt.reason {
			t.Errorf("instance decode(%s) error = %v, want %q", tt.row, err, tt.reason)
		}
	}
	collections := []struct{ row, reason string }{
		{`{"collection_id":"1","vertical_scaling":"4"}`, "unknown vertical_scaling 4"},
		{`{"collection_id":"1","scheduler":"2"}`, "unknown scheduler 2"},
		{`{"collection_id":"1","max_per_machine":"2147483648"}`, "max_per_machine 2147483648 out of range"},
		{`{"type":"0"}`, "missing collection_id"},
	}
	for _, tt := range collections {
		var d collection2019
		var ev JobEvent
		if _, err := d.decode([]byte(tt.row), &ev); err == nil || err.Error() != tt.reason {
			t.Errorf("collection decode(%s) error = %v, want %q", tt.row, err, tt.reason)
		}
	}
	machines := []struct{ row, reason string }{
		{`{"machine_id":"5"}`, "unknown machine event type 0"},
		{`{"machine_id":"5","type":"4"}`, "unknown machine event type 4"},
		{`{"type":"1"}`, "missing machine_id"},
		{`{"machine_id":"5","type":"1","missing_data_reason":"2"}`, "unknown missing_data_reason 2"},
	}
	for _, tt := range machines {
		var d machine2019
		var ev MachineEvent
		if _, err := d.decode([]byte(tt.row), &ev); err == nil || err.Error() != tt.reason {
			t.Errorf("machine decode(%s) error = %v, want %q", tt.row, err, tt.reason)
		}
	}
}

func TestShards2019(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenInstanceEvents2019(dir); err == nil || !strings.Contains(err.Error(), "no instance_events-NNNNNNNNNNNN.json[.gz] shards in "+dir) {
		t.Errorf("empty dir: err = %v", err)
	}
	// Shards in a per-table directory, ordered by number.
	sub := filepath.Join(dir, "machine_events")
	writeFile(t, filepath.Join(sub, "machine_events-000000000010.json"), []byte(`{"time":"10","machine_id":"1","type":"1"}`+"\n"))
	writeFile(t, filepath.Join(sub, "machine_events-000000000002.json.gz"), gzipped(t, []byte(`{"time":"2","machine_id":"1","type":"1"}`+"\n")))
	writeFile(t, filepath.Join(sub, "collection_events-000000000001.json"), []byte(`{"time":"1","collection_id":"1"}`+"\n"))
	r, err := OpenMachineEvents2019(dir)
	if err != nil {
		t.Fatal(err)
	}
	var times []int64
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, ev.Time)
	}
	assertEqual(t, "2019 shard order", times, []int64{2, 10})
}
