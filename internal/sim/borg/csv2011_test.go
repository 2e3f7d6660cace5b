package borg

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

func TestMachineEvents2011(t *testing.T) {
	r, err := OpenMachineEvents2011("testdata/t2011/machine_events")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAll(t, r.Next)
	want := []MachineEvent{
		{Time: 0, MachineID: 5, Type: MachineAdd, Platform: "pA", CPU: 0.5, Memory: 0.2493, Absent: FieldSwitch},
		{Time: 0, MachineID: 6, Type: MachineAdd, Platform: "pB", CPU: 1, Memory: 1, Absent: FieldSwitch},
		{Time: 835150655, MachineID: 5, Type: MachineUpdate, Platform: "pA", CPU: 0.5, Memory: 0.4995, Absent: FieldSwitch},
		{Time: 2000000000, MachineID: 6, Type: MachineRemove, Platform: "pB", Absent: FieldCPU | FieldMemory | FieldSwitch},
	}
	assertEqual(t, "machine events (plain shard 0, then gzip shard 1)", got, want)
	st := r.Stats()
	if st.Table != "machine_events" || st.Files != 2 || st.Rows != 4 || st.Malformed != 0 || st.MinTime != 0 || st.MaxTime != 2000000000 {
		t.Errorf("stats = %+v", st)
	}
}

func TestJobEvents2011(t *testing.T) {
	r, err := OpenJobEvents2011("testdata/t2011/job_events")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAll(t, r.Next)
	want := []JobEvent{
		{Time: 0, JobID: 100, Type: EventSubmit, User: "userA", SchedClass: 3, JobName: "nameA", LogicalJobName: "lnameA", Absent: FieldPriority},
		{Time: 0, JobID: 100, Type: EventSchedule, User: "userA", SchedClass: 3, JobName: "nameA", LogicalJobName: "lnameA", Absent: FieldPriority},
		{Time: 1500000000, Missing: MissingExistsNoCreation, JobID: 200, Type: EventSubmit, User: "userB", JobName: "nameB",
			Absent: FieldSchedClass | FieldLogicalJobName | FieldPriority},
		{Time: 2500000000, JobID: 100, Type: EventFinish, User: "userA", SchedClass: 3, JobName: "nameA", LogicalJobName: "lnameA", Absent: FieldPriority},
	}
	assertEqual(t, "job events", got, want)
}

func TestTaskEvents2011(t *testing.T) {
	r, err := OpenTaskEvents2011("testdata/t2011/task_events")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAll(t, r.Next)
	want := []TaskEvent{
		{Time: 0, Missing: MissingExistsNoCreation, JobID: 100, TaskIndex: 0, MachineID: 5, Type: EventSchedule, User: "userA",
			SchedClass: 3, Priority: 9, Absent: FieldCPU | FieldMemory | FieldDisk | FieldDifferentMachines},
		{Time: 0, JobID: 100, TaskIndex: 1, MachineID: 6, Type: EventSchedule, User: "userA", SchedClass: 3, Priority: 9,
			CPURequest: 0.125, MemRequest: 0.07446, DiskRequest: 0.0004244},
		{Time: 1500000000, JobID: 200, TaskIndex: 0, Type: EventSubmit, User: "userB", SchedClass: 0, Priority: 2,
			CPURequest: 0.01562, MemRequest: 0.01553, DiskRequest: 0.0002155, DifferentMachines: true, Absent: FieldMachine},
		// Shard 1 is plain text with CRLF line endings and no final newline.
		{Time: 2000000000, JobID: 100, TaskIndex: 1, MachineID: 6, Type: EventEvict, User: "userA", SchedClass: 3, Priority: 9,
			CPURequest: 0.125, MemRequest: 0.07446, DiskRequest: 0.0004244},
		{Time: 2500000000, JobID: 100, TaskIndex: 0, MachineID: 5, Type: EventFinish, User: "userA", SchedClass: 3, Priority: 9,
			CPURequest: 0.125, MemRequest: 0.07446, DiskRequest: 3.815e-06},
		{Time: TimeAfterWindow, JobID: 200, TaskIndex: 0, Type: EventKill, User: "userB", Priority: 2,
			CPURequest: 0.01562, MemRequest: 0.01553, DiskRequest: 0.0002155, DifferentMachines: true, Absent: FieldMachine},
	}
	assertEqual(t, "task events", got, want)
	if st := r.Stats(); st.Files != 2 || st.Rows != 6 || st.Malformed != 0 || st.OutOfOrder != 0 || st.MaxTime != TimeAfterWindow {
		t.Errorf("stats = %+v", st)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("Next after the end = %v, want io.EOF", err)
	}
}

func TestMalformed2011(t *testing.T) {
	dir := "testdata/malformed2011/task_events"
	r, err := OpenTaskEvents2011(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAll(t, r.Next)
	type key struct {
		time, index int64
		user        string
	}
	var keys []key
	for _, ev := range got {
		keys = append(keys, key{ev.Time, ev.TaskIndex, ev.User})
	}
	assertEqual(t, "well-formed rows", keys, []key{{0, 0, "userA"}, {6, 1, "user,A"}, {7, 3, "userA"}})

	st := r.Stats()
	if st.Rows != 3 || st.Malformed != 12 {
		t.Errorf("rows %d, malformed %d; want 3, 12", st.Rows, st.Malformed)
	}
	file := filepath.Join(dir, "part-00000-of-00001.csv")
	assertEqual(t, "examples", st.Examples, []Malformed{
		{file, 2, "12 columns, want 13"},
		{file, 3, "more than 13 columns, want 13"},
		{file, 4, `bad time "abc" (column 1)`},
		{file, 5, "missing job ID (column 3)"},
		{file, 6, "unknown event type 9 (column 6)"},
	})
	if s := st.String(); !strings.Contains(s, "12 malformed") || !strings.Contains(s, file+":2: 12 columns, want 13") {
		t.Errorf("String() = %q", s)
	}
}

// Each malformed row is rejected with its own reason.
func TestMalformedReasons2011(t *testing.T) {
	tests := []struct {
		row, reason string
	}{
		{"5,,100,0,5,1,userA,3,9,x,0.1,0.1,0", `bad CPU request "x" (column 10)`},
		{"5,,100,0,5,1,userA,7,9,0.1,0.1,0.1,0", "scheduling class 7 out of range 0-3 (column 8)"},
		{"5,7,100,0,5,1,userA,3,9,0.1,0.1,0.1,0", "unknown missing info 7 (column 2)"},
		{"5,,100,0,5,1,userA,3,9,0.1,0.1,0.1,2", "different-machines restriction 2 is not 0 or 1 (column 13)"},
		{"-5,,100,0,5,1,userA,3,9,0.1,0.1,0.1,0", "negative time -5"},
		{"6,,100,2,5,1,userA,3,9,NaN,0.1,0.1,0", `bad CPU request "NaN" (column 10)`},
		{"6,,100,2,5,1,userA,3,-1,0.1,0.1,0.1,0", "priority -1 out of range (column 9)"},
		{"6,,100,,5,1,userA,3,1,0.1,0.1,0.1,0", "missing task index (column 4)"},
		{"6,,100,1,5z,1,userA,3,1,0.1,0.1,0.1,0", `bad machine ID "5z" (column 5)`},
		{"6,,100,1,5,1,userA,3,1," + strings.Repeat("9", 50) + "x,0.1,0.1,0", `bad CPU request "` + strings.Repeat("9", 40) + `"... (column 10)`},
		{`"7,,100`, `bad CSV: extraneous or missing " in quoted-field`},
	}
	for _, tt := range tests {
		var d task2011
		var ev TaskEvent
		_, err := d.decode([]byte(tt.row), &ev)
		if err == nil || err.Error() != tt.reason {
			t.Errorf("decode(%q) error = %v, want %q", tt.row, err, tt.reason)
		}
	}
	machineRows := []struct{ row, reason string }{
		{"0,5,3,pA,0.5,0.5", "unknown machine event type 3 (column 3)"},
		{"0,,0,pA,0.5,0.5", "missing machine ID (column 2)"},
		{"0,5,0,pA,0.5,Inf", `bad memory "Inf" (column 6)`},
	}
	for _, tt := range machineRows {
		var d machine2011
		var ev MachineEvent
		if _, err := d.decode([]byte(tt.row), &ev); err == nil || err.Error() != tt.reason {
			t.Errorf("machine decode(%q) error = %v, want %q", tt.row, err, tt.reason)
		}
	}
	jobRows := []struct{ row, reason string }{
		{"0,,100,9,u,1,n,l", "unknown event type 9 (column 4)"},
		{"0,,100,0,u,1,n", "7 columns, want 8"},
	}
	for _, tt := range jobRows {
		var d job2011
		var ev JobEvent
		if _, err := d.decode([]byte(tt.row), &ev); err == nil || err.Error() != tt.reason {
			t.Errorf("job decode(%q) error = %v, want %q", tt.row, err, tt.reason)
		}
	}
}

func TestLongLines2011(t *testing.T) {
	dir := t.TempDir()
	var data bytes.Buffer
	data.WriteString(strings.Repeat("x", 100<<10) + "\n")                  // longer than the read buffer, shorter than the limit
	data.WriteString(strings.Repeat("y", maxLineLen+10) + "\n")            // over the limit
	data.WriteString("42,7,0," + strings.Repeat("p", 70<<10) + ",1,0.5\n") // long but well-formed
	data.WriteString("43,8,0,p,0.5,0.5\n")
	writeFile(t, filepath.Join(dir, "part-00000-of-00001.csv.gz"), gzipped(t, data.Bytes()))
	r, err := OpenMachineEvents2011(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, r.Next)
	if len(got) != 2 || got[0].Time != 42 || got[0].MachineID != 7 || len(got[0].Platform) != 70<<10 || got[1].Time != 43 || got[1].Memory != 0.5 {
		t.Errorf("events = %+v", got)
	}
	st := r.Stats()
	file := filepath.Join(dir, "part-00000-of-00001.csv.gz")
	assertEqual(t, "examples", st.Examples, []Malformed{
		{file, 1, "1 columns, want 6"},
		{file, 2, "line longer than 1 MiB"},
	})
}

func TestShardOrder2011(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "part-10-of-11.csv"), []byte("10,1,0,p,1,1\n"))
	writeFile(t, filepath.Join(dir, "part-2-of-11.csv.gz"), gzipped(t, []byte("2,1,0,p,1,1\n")))
	writeFile(t, filepath.Join(dir, "part-1-of-11.csv"), []byte("1,1,0,p,1,1\n"))
	writeFile(t, filepath.Join(dir, "README"), []byte("not a shard"))
	writeFile(t, filepath.Join(dir, "part-3-of-11.csv.bak"), []byte("3,1,0,p,1,1\n"))
	r, err := OpenMachineEvents2011(dir)
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
	assertEqual(t, "shard order", times, []int64{1, 2, 10})

	writeFile(t, filepath.Join(dir, "part-02-of-11.csv"), []byte("2,1,0,p,1,1\n"))
	if _, err := OpenMachineEvents2011(dir); err == nil || !strings.Contains(err.Error(), "duplicate shard 2") {
		t.Errorf("duplicate shard: err = %v", err)
	}
}

func TestOpenErrors2011(t *testing.T) {
	if _, err := OpenTaskEvents2011(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Error("missing directory: no error")
	}
	empty := t.TempDir()
	if _, err := OpenJobEvents2011(empty); err == nil || !strings.Contains(err.Error(), "no part-NNNNN-of-NNNNN.csv[.gz] shards in "+empty) {
		t.Errorf("empty directory: err = %v", err)
	}
}

func TestCorruptGzip2011(t *testing.T) {
	var rows bytes.Buffer
	for i := range 5000 {
		rows.WriteString("0,5,0,platform-" + strings.Repeat("p", i%50) + ",0.5,0.25\n")
	}
	gz := gzipped(t, rows.Bytes())
	dir := t.TempDir()
	file := filepath.Join(dir, "part-00000-of-00001.csv.gz")
	writeFile(t, file, gz[:len(gz)/2])
	r, err := OpenMachineEvents2011(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	var readErr error
	for {
		_, err := r.Next()
		if err != nil {
			readErr = err
			break
		}
		n++
	}
	if readErr == io.EOF || !strings.Contains(readErr.Error(), file) || !errors.Is(readErr, io.ErrUnexpectedEOF) {
		t.Errorf("truncated gzip: err = %v after %d rows, want unexpected EOF naming %s", readErr, n, file)
	}
	if _, err := r.Next(); err != readErr {
		t.Errorf("error is not sticky: %v", err)
	}

	writeFile(t, file, []byte{0x1f, 0x8b, 0})
	r, err = OpenMachineEvents2011(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err == nil || err == io.EOF || !strings.Contains(err.Error(), file) {
		t.Errorf("bad gzip header: err = %v", err)
	}
}

func TestCloseAndEarlyBreak(t *testing.T) {
	r, err := OpenTaskEvents2011("testdata/t2011/task_events")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == 2 {
			break
		}
	}
	ev, err := r.Next()
	if err != nil || ev.Time != 1500000000 {
		t.Errorf("Next after break = %+v, %v; want the third event", ev, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("Next after Close = %v, want io.EOF", err)
	}
}
