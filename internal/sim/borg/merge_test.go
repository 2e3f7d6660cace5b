package borg

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func describe(ev Event) string {
	switch ev.Kind {
	case KindMachine:
		return fmt.Sprintf("machine@%d:%v:%d", ev.Time, ev.Machine.Type, ev.Machine.MachineID)
	case KindJob:
		return fmt.Sprintf("job@%d:%v:%d", ev.Time, ev.Job.Type, ev.Job.JobID)
	}
	return fmt.Sprintf("task@%d:%v:%d/%d", ev.Time, ev.Task.Type, ev.Task.JobID, ev.Task.TaskIndex)
}

func streamOf(t *testing.T, dir string, w Window) ([]string, Stats) {
	t.Helper()
	tr, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tr.Stream(w)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []string
	for ev, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, describe(ev))
	}
	return got, s.Stats()
}

func TestMerge2011(t *testing.T) {
	all := []string{
		"machine@0:ADD:5", "machine@0:ADD:6", "job@0:SUBMIT:100", "job@0:SCHEDULE:100",
		"task@0:SCHEDULE:100/0", "task@0:SCHEDULE:100/1", "machine@835150655:UPDATE:5",
		"job@1500000000:SUBMIT:200", "task@1500000000:SUBMIT:200/0",
		"machine@2000000000:REMOVE:6", "task@2000000000:EVICT:100/1",
		"job@2500000000:FINISH:100", "task@2500000000:FINISH:100/0",
		"task@9223372036854775807:KILL:200/0",
	}
	tests := []struct {
		name string
		w    Window
		want []string
	}{
		{"everything", Window{}, all},
		{"closed window", Window{Start: 1500000000, End: 2000000000}, all[7:11]},
		{"open end", Window{Start: 2000000001}, all[11:]},
		{"up to the first shard boundary", Window{End: 835150655}, all[:7]},
		{"empty", Window{Start: 3, End: 4}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, st := streamOf(t, "testdata/t2011", tt.w)
			assertEqual(t, "merged stream", got, tt.want)
			if st.Malformed() != 0 {
				t.Errorf("malformed = %d", st.Malformed())
			}
		})
	}
}

func TestMerge2019(t *testing.T) {
	got, st := streamOf(t, "testdata/t2019", Window{})
	want := []string{
		"machine@0:ADD:101", "job@0:SUBMIT:400", "task@0:SUBMIT:400/0",
		"machine@1000000:UPDATE:101", "job@1000000:SCHEDULE:400", "task@1000000:SCHEDULE:400/0",
		"task@1500000:QUEUE:400/1",
		"job@2000000:FINISH:400", "task@2000000:UPDATE_RUNNING:400/1",
		"task@2500000:FINISH:400/1",
		"machine@3000000:REMOVE:101", "task@3000000:KILL:400/2",
	}
	assertEqual(t, "merged 2019 stream", got, want)
	if st.Tasks.Malformed != 6 || st.Malformed() != 6 || st.Machines.Rows != 3 || st.Jobs.Rows != 3 || st.Tasks.Rows != 6 {
		t.Errorf("stats = %+v", st)
	}
}

// Merge takes any subset of tables: here jobs and tasks only.
func TestMergeJobsAndTasks(t *testing.T) {
	j, err := OpenJobEvents2011("testdata/t2011/job_events")
	if err != nil {
		t.Fatal(err)
	}
	k, err := OpenTaskEvents2011("testdata/t2011/task_events")
	if err != nil {
		t.Fatal(err)
	}
	s := Merge(nil, j, k, Window{End: 1500000000})
	defer s.Close()
	var got []string
	for {
		ev, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, describe(ev))
	}
	assertEqual(t, "jobs and tasks", got, []string{
		"job@0:SUBMIT:100", "job@0:SCHEDULE:100", "task@0:SCHEDULE:100/0", "task@0:SCHEDULE:100/1",
		"job@1500000000:SUBMIT:200", "task@1500000000:SUBMIT:200/0",
	})
	if st := s.Stats(); st.Machines.Rows != 0 || st.Jobs.Rows != 4 || st.Tasks.Rows != 4 {
		// The window ends each table at its first later event, which is read but not yielded.
		t.Errorf("stats = %+v", st)
	}
}

func TestMergeReadError(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "part-00000-of-00001.csv.gz"), []byte{0x1f, 0x8b, 8, 0, 0})
	k, err := OpenTaskEvents2011(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := OpenMachineEvents2011("testdata/t2011/machine_events")
	if err != nil {
		t.Fatal(err)
	}
	s := Merge(m, nil, k, Window{})
	_, err = s.Next()
	if err == nil || err == io.EOF || !strings.Contains(err.Error(), dir) {
		t.Fatalf("Next = %v, want a read error naming %s", err, dir)
	}
	if _, err2 := s.Next(); err2 != err {
		t.Errorf("error not sticky: %v", err2)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestOpenDetectsFormat(t *testing.T) {
	for dir, want := range map[string]Format{"testdata/t2011": Format2011, "testdata/t2019": Format2019} {
		tr, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Format() != want || tr.Dir() != dir {
			t.Errorf("Open(%s) = format %v, dir %s; want %v", dir, tr.Format(), tr.Dir(), want)
		}
	}
	if Format2011.String() != "2011" || Format2019.String() != "2019" {
		t.Errorf("format names %q %q", Format2011, Format2019)
	}

	empty := t.TempDir()
	if _, err := Open(empty); err == nil || !strings.Contains(err.Error(), "no 2011 or 2019 trace tables in "+empty) {
		t.Errorf("empty dir: err = %v", err)
	}
	both := t.TempDir()
	writeFile(t, filepath.Join(both, "task_events", "part-00000-of-00001.csv"), []byte("\n"))
	writeFile(t, filepath.Join(both, "instance_events-000000000000.json"), []byte("\n"))
	if _, err := Open(both); err == nil || !strings.Contains(err.Error(), "both 2011 and 2019") {
		t.Errorf("mixed dir: err = %v", err)
	}
	file := filepath.Join(empty, "f")
	writeFile(t, file, nil)
	if _, err := Open(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file: err = %v", err)
	}
	if _, err := Open(filepath.Join(empty, "missing")); err == nil {
		t.Error("missing dir: no error")
	}
}

// A trace missing a table opens, but streaming it names the missing table.
func TestStreamMissingTable(t *testing.T) {
	dir := t.TempDir()
	for _, table := range []string{"machine_events", "job_events"} {
		src := filepath.Join("testdata/t2011", table)
		entries, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, table, e.Name()), data)
		}
	}
	tr, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Stream(Window{}); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "task_events")) {
		t.Errorf("Stream without task_events: err = %v", err)
	}
	j, err := tr.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if got := len(readAll(t, j.Next)); got != 4 {
		t.Errorf("jobs = %d, want 4", got)
	}
}

func TestWindowContains(t *testing.T) {
	tests := []struct {
		w    Window
		t    int64
		want bool
	}{
		{Window{}, 0, true},
		{Window{}, TimeAfterWindow, true},
		{Window{Start: 10, End: 20}, 9, false},
		{Window{Start: 10, End: 20}, 10, true},
		{Window{Start: 10, End: 20}, 20, true},
		{Window{Start: 10, End: 20}, 21, false},
		{Window{Start: 10}, TimeAfterWindow, true},
	}
	for _, tt := range tests {
		if got := tt.w.Contains(tt.t); got != tt.want {
			t.Errorf("%+v.Contains(%d) = %v, want %v", tt.w, tt.t, got, tt.want)
		}
	}
}
