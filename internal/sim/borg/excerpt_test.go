package borg

import (
	"io"
	"path/filepath"
	"runtime"
	"testing"
)

// excerptDir is the bundled excerpt of the Google clusterdata-2011-2 trace.
const excerptDir = "../../../traces/google-2011-excerpt"

// The excerpt's files are byte-identical to the checksums recorded with it.
func TestExcerptChecksums(t *testing.T) { checkSums(t, excerptDir, 5) }

// The figures asserted here are the ones traces/README.md reports.
func TestExcerptFigures(t *testing.T) {
	tr, err := Open(excerptDir)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format() != Format2011 {
		t.Fatalf("format %v", tr.Format())
	}
	s, err := tr.Stream(Window{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	type task struct{ job, index int64 }
	machines := map[int64]bool{}
	jobs := map[int64]bool{}
	tasks := map[task]bool{}
	taskJobs := map[int64]bool{}
	machineTypes := map[MachineEventType]int{}
	jobTypes := map[EventType]int{}
	taskTypes := map[EventType]int{}
	var addedAtZero, jobsAtZero, tasksAtZero, total, inWindow int
	firstTaskAfterZero := int64(-1)
	var prev Event
	for ev, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		if total > 0 && (ev.Time < prev.Time || ev.Time == prev.Time && ev.Kind < prev.Kind) {
			t.Fatalf("event %d (%s) comes after %s", total, describe(ev), describe(prev))
		}
		prev = ev
		total++
		if ev.Time >= 600e6 && ev.Time <= 2400e6 {
			inWindow++
		}
		switch ev.Kind {
		case KindMachine:
			machines[ev.Machine.MachineID] = true
			machineTypes[ev.Machine.Type]++
			if ev.Time == 0 && ev.Machine.Type == MachineAdd {
				addedAtZero++
			}
		case KindJob:
			jobs[ev.Job.JobID] = true
			jobTypes[ev.Job.Type]++
			if ev.Time == 0 {
				jobsAtZero++
			}
		case KindTask:
			tasks[task{ev.Task.JobID, ev.Task.TaskIndex}] = true
			taskJobs[ev.Task.JobID] = true
			taskTypes[ev.Task.Type]++
			if ev.Time == 0 {
				tasksAtZero++
			} else if firstTaskAfterZero < 0 {
				firstTaskAfterZero = ev.Time
			}
		}
	}
	st := s.Stats()
	checks := []struct {
		name      string
		got, want int64
	}{
		{"machine rows", st.Machines.Rows, 37780},
		{"job rows", st.Jobs.Rows, 13803},
		{"task rows", st.Tasks.Rows, 527922},
		{"malformed", st.Malformed(), 0},
		{"out of order", st.Machines.OutOfOrder + st.Jobs.OutOfOrder + st.Tasks.OutOfOrder, 0},
		{"merged events", int64(total), 579505},
		{"events in [600 s, 2400 s]", int64(inWindow), 80954},
		{"machines", int64(len(machines)), 12583},
		{"machines added at t=0", int64(addedAtZero), 12477},
		{"machine ADD", int64(machineTypes[MachineAdd]), 21443},
		{"machine REMOVE", int64(machineTypes[MachineRemove]), 8957},
		{"machine UPDATE", int64(machineTypes[MachineUpdate]), 7380},
		{"last machine event", st.Machines.MaxTime, 2506135493517},
		{"jobs", int64(len(jobs)), 5953},
		{"job events at t=0", int64(jobsAtZero), 7970},
		{"last job event", st.Jobs.MaxTime, 10622369433},
		{"job SUBMIT", int64(jobTypes[EventSubmit]), 5953},
		{"job SCHEDULE", int64(jobTypes[EventSchedule]), 5951},
		{"job FINISH", int64(jobTypes[EventFinish]), 1334},
		{"job KILL", int64(jobTypes[EventKill]), 527},
		{"job FAIL", int64(jobTypes[EventFail]), 38},
		{"tasks", int64(len(tasks)), 208329},
		{"jobs with task events", int64(len(taskJobs)), 5948},
		{"task events at t=0", int64(tasksAtZero), 277321},
		{"first task event after t=0", firstTaskAfterZero, 600026913},
		{"last task event", st.Tasks.MaxTime, 10622388150},
		{"task SUBMIT", int64(taskTypes[EventSubmit]), 227313},
		{"task SCHEDULE", int64(taskTypes[EventSchedule]), 216225},
		{"task EVICT", int64(taskTypes[EventEvict]), 6838},
		{"task FAIL", int64(taskTypes[EventFail]), 1082},
		{"task FINISH", int64(taskTypes[EventFinish]), 57788},
		{"task KILL", int64(taskTypes[EventKill]), 18676},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

// BenchmarkTaskEvents2011 reads every task event of the excerpt (527,922
// rows, gzip) per iteration.
func BenchmarkTaskEvents2011(b *testing.B) {
	var events int64
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		r, err := OpenTaskEvents2011(filepath.Join(excerptDir, "task_events"))
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			events++
		}
		r.Close()
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(events), "allocs/event")
}

// BenchmarkStream2011 merges the excerpt's three tables per iteration.
func BenchmarkStream2011(b *testing.B) {
	tr, err := Open(excerptDir)
	if err != nil {
		b.Fatal(err)
	}
	var events int64
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		s, err := tr.Stream(Window{})
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range s.All() {
			if err != nil {
				b.Fatal(err)
			}
			events++
		}
		s.Close()
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(events), "allocs/event")
}

// BenchmarkDecodeTask2011 decodes one task_events row: the per-event cost
// without decompression.
func BenchmarkDecodeTask2011(b *testing.B) {
	line := []byte("5611086343,,515042969,26,4155527081,1,/fk1fVcVxZ6iM6gHZzqbIyq56m5zrmHfpdcZ/zzkq4c=,2,0,0.01562,0.01553,0.0002155,0")
	var d task2011
	var ev TaskEvent
	if _, err := d.decode(line, &ev); err != nil { // warm the user interner
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.decode(line, &ev); err != nil {
			b.Fatal(err)
		}
	}
}
