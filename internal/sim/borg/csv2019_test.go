package borg

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sample2019 holds the two real 999-row ClusterData2019 samples (see its
// README.md for the source and the licence).
const sample2019 = "testdata/clusterdata2019-sample"

func TestReal2019SampleChecksums(t *testing.T) {
	f, err := os.Open(filepath.Join(sample2019, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("bad SHA256SUMS line %q", sc.Text())
		}
		data, err := os.ReadFile(filepath.Join(sample2019, name))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(data)
		if got := hex.EncodeToString(h[:]); got != sum {
			t.Errorf("%s: sha256 %s, want %s", name, got, sum)
		}
		n++
	}
	if n != 2 {
		t.Errorf("SHA256SUMS lists %d files, want 2", n)
	}
}

// The 2019 reader reads the BigQuery CSV export shape: a header of column
// names, dotted for nested fields, then one row per event; the same events
// as the JSON export of the same rows.
func TestInstanceEvents2019CSV(t *testing.T) {
	dir := t.TempDir()
	csv := "time,type,collection_id,priority,instance_index,resource_request.cpus,resource_request.memory,machine_id,scheduling_class\r\n" +
		"0,0,400,360,0,0.0207,0.0101,,2\r\n" +
		"\n" +
		"1000000,3,400,360,0,0.0207,0.0101,101,2\n" +
		`"1500000","1","400","360","1",,,,` + "\n" +
		"2000000,abc,400,360,1,0.5,0.5,,\n" + // bad value
		"2100000,3,400,360\n" + // too few columns
		"2200000,11,400,360,1,,,,\n" + // unknown event type
		"2300000,3,,360,1,,,,\n" + // no collection
		"2400000,\"3,400\n" + // bad quoting
		"2500000,6,400,,1,,,,\n"
	writeFile(t, filepath.Join(dir, "instance_events", "instance_events-000000000000.csv"), gzipped(t, []byte(csv)))
	// a JSON shard after it: each file says what it is by its content
	writeFile(t, filepath.Join(dir, "instance_events", "instance_events-000000000001.json"),
		[]byte(`{"time":"3000000","type":"5","collection_id":"400","instance_index":"2"}`+"\n"))
	r, err := OpenInstanceEvents2019(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAll(t, r.Next)
	const never = FieldUser | FieldDisk | FieldDifferentMachines
	want := []TaskEvent{
		{Time: 0, JobID: 400, TaskIndex: 0, Type: EventSubmit, SchedClass: 2, Priority: 360,
			CPURequest: 0.0207, MemRequest: 0.0101, Absent: never | FieldMachine},
		{Time: 1000000, JobID: 400, TaskIndex: 0, MachineID: 101, Type: EventSchedule, SchedClass: 2, Priority: 360,
			CPURequest: 0.0207, MemRequest: 0.0101, Absent: never},
		{Time: 1500000, JobID: 400, TaskIndex: 1, Type: EventQueue, Priority: 360,
			Absent: never | FieldMachine | FieldSchedClass | FieldCPU | FieldMemory},
		{Time: 2500000, JobID: 400, TaskIndex: 1, Type: EventFinish,
			Absent: never | FieldMachine | FieldSchedClass | FieldPriority | FieldCPU | FieldMemory},
		{Time: 3000000, JobID: 400, TaskIndex: 2, Type: EventFail,
			Absent: never | FieldMachine | FieldSchedClass | FieldPriority | FieldCPU | FieldMemory},
	}
	assertEqual(t, "2019 CSV instance events", got, want)
	st := r.Stats()
	if st.Files != 2 || st.Rows != 5 || st.Malformed != 5 {
		t.Errorf("stats = %+v", st)
	}
	file := filepath.Join(dir, "instance_events", "instance_events-000000000000.csv")
	wantExamples := []struct {
		line   int64
		reason string
	}{
		{6, "bad value: bad integer abc"},
		{7, "4 columns, the header has 9"},
		{8, "unknown event type 11"},
		{9, "missing collection_id"},
		{10, "bad CSV: "},
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

// A CSV header that cannot be a BigQuery export's makes every row of its
// file malformed, saying so, and nothing else.
func TestCSV2019BadHeader(t *testing.T) {
	for _, tt := range []struct{ header, reason string }{
		{"time,type,,collection_id", `no CSV header: column 3 is named ""`},
		{"time,type,Collection ID", `no CSV header: column 3 is named "Collection ID"`},
		{"time,resource_request,resource_request.cpus,collection_id", `no CSV header: column "resource_request" is both a value and a record`},
		{"time,time,collection_id", `no CSV header: column "time" twice`},
		{`time,"type`, "no CSV header: bad CSV: "},
	} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "collection_events-000000000000.csv"), []byte(tt.header+"\n1,0,400\n2,0,401\n"))
		r, err := OpenCollectionEvents2019(dir)
		if err != nil {
			t.Fatal(err)
		}
		if evs := readAll(t, r.Next); len(evs) != 0 {
			t.Errorf("header %q: events %v", tt.header, evs)
		}
		st := r.Stats()
		if st.Malformed != 3 || len(st.Examples) != 3 || !strings.HasPrefix(st.Examples[0].Reason, tt.reason) ||
			st.Examples[0].Line != 1 || !strings.HasPrefix(st.Examples[2].Reason, "row of a file without a valid CSV header") {
			t.Errorf("header %q: stats %v, want 3 malformed, the first %q", tt.header, st, tt.reason)
		}
		r.Close()
	}
}

// Open finds a 2019 CSV export in per-table directories whatever its files
// are named, and does not take a 2011 trace's part-NNNNN-of-NNNNN.csv
// shards for one.
func TestOpen2019CSV(t *testing.T) {
	tr, err := Open(sample2019)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format() != Format2019 {
		t.Errorf("format %s, want 2019", tr.Format())
	}
	tr, err = Open("testdata/t2011")
	if err != nil || tr.Format() != Format2011 {
		t.Errorf("2011 fixture: %v, %v", tr, err)
	}
}

// What the reader makes of the two real samples: every row is well formed,
// and the counts below are those of the files (checked with awk too).
func TestReal2019Sample(t *testing.T) {
	tr, err := Open(sample2019)
	if err != nil {
		t.Fatal(err)
	}
	k, err := tr.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	types := map[EventType]int{}
	prios := map[int32]int{}
	jobs := map[int64]bool{}
	var cpu float64
	for ev, err := range k.All() {
		if err != nil {
			t.Fatal(err)
		}
		types[ev.Type]++
		prios[ev.Priority]++
		jobs[ev.JobID] = true
		cpu += ev.CPURequest
		if ev.Absent.Has(FieldCPU) || ev.Absent.Has(FieldMemory) || !ev.Absent.Has(FieldMachine) {
			t.Errorf("instance row %+v: requests and no machine expected", ev)
		}
	}
	st := k.Stats()
	if st.Rows != 999 || st.Malformed != 0 || st.OutOfOrder != 989 || st.MinTime != 0 || st.MaxTime != 602003352965 {
		t.Errorf("instance_events stats %v (min %d max %d)", st, st.MinTime, st.MaxTime)
	}
	assertEqual(t, "instance event types", types, map[EventType]int{
		EventSubmit: 257, EventQueue: 7, EventEnable: 284, EventSchedule: 356, EventFail: 21, EventFinish: 11, EventLost: 63})
	assertEqual(t, "instance priorities", prios, map[int32]int{0: 20, 103: 231, 115: 5, 119: 19, 200: 660, 360: 64})
	if len(jobs) != 98 || cpu <= 0 {
		t.Errorf("%d collections, CPU requested %g", len(jobs), cpu)
	}

	j, err := tr.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	jtypes := map[EventType]int{}
	for ev, err := range j.All() {
		if err != nil {
			t.Fatal(err)
		}
		jtypes[ev.Type]++
	}
	jst := j.Stats()
	if jst.Rows != 999 || jst.Malformed != 0 || jst.OutOfOrder != 993 || jst.MaxTime != 604489903608 {
		t.Errorf("collection_events stats %v", jst)
	}
	assertEqual(t, "collection event types", jtypes, map[EventType]int{
		EventSubmit: 743, EventEnable: 146, EventSchedule: 55, EventFail: 4, EventKill: 51})
}

// The samples are not an event stream: Stream refuses them, naming every
// reason, rather than merge unordered rows into a replay.
func TestReal2019SampleNotAStream(t *testing.T) {
	tr, err := Open(sample2019)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.Stream(Window{})
	var ns *NotStreamError
	if !errors.As(err, &ns) {
		t.Fatalf("Stream: %v, want a NotStreamError", err)
	}
	if !slices.Contains(ns.Missing, Table2019Machines) || len(ns.Missing) != 1 ||
		!strings.Contains(err.Error(), "not a replayable event stream") {
		t.Errorf("error %q (missing %v)", err, ns.Missing)
	}

	// With a machine table the stream opens, and stops with an OrderError
	// at the first row that goes back in time.
	dir := t.TempDir()
	for _, f := range []string{"instance_events/instance-sample.csv", "collection_events/collection-sample.csv"} {
		data, err := os.ReadFile(filepath.Join(sample2019, f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, f), data)
	}
	writeFile(t, filepath.Join(dir, "machine_events-000000000000.json"), []byte(`{"time":"0","machine_id":"1","type":"1","capacity":{"cpus":"0.5","memory":"0.5"}}`+"\n"))
	tr, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := tr.Stream(Window{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n := 0
	for {
		_, err = st.Next()
		if err != nil {
			break
		}
		n++
	}
	var oe *OrderError
	if !errors.As(err, &oe) || err == io.EOF {
		t.Fatalf("after %d events: %v, want an OrderError", n, err)
	}
	// instance_events line 6 (time 0) comes after line 5 (512956470938)
	if oe.Table != Table2019Tasks || oe.Line != 6 || oe.Time != 0 || oe.Prev != 512956470938 ||
		!strings.Contains(err.Error(), "not in time order") {
		t.Errorf("OrderError %+v: %v", oe, err)
	}
}
