package gen

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/paddock-sched/paddock/internal/sim/borg"
)

// recorder is a sink that keeps every event the generator writes.
type recorder struct {
	machines []borg.MachineEvent
	jobs     []borg.JobEvent
	tasks    []borg.TaskEvent
}

func (r *recorder) machine(e *borg.MachineEvent) error {
	r.machines = append(r.machines, *e)
	return nil
}
func (r *recorder) job(e *borg.JobEvent) error   { r.jobs = append(r.jobs, *e); return nil }
func (r *recorder) task(e *borg.TaskEvent) error { r.tasks = append(r.tasks, *e); return nil }
func (r *recorder) close() error                 { return nil }

// generateRecorded writes one cell into dir and also returns what was
// written, as records.
func generateRecorded(t *testing.T, dir string, o Options) (*Report, *recorder) {
	t.Helper()
	o, err := o.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	w, err := newJSONWriter(dir, o.ShardRows)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	rep, err := generate(o, "", tee{w, rec})
	if err != nil {
		t.Fatal(err)
	}
	rep.MachineFiles, rep.JobFiles, rep.TaskFiles = w.machines.files, w.jobs.files, w.tasks.files
	return rep, rec
}

// readBack reads a generated trace with the trace reader.
func readBack(t *testing.T, dir string) (*recorder, borg.Stats) {
	t.Helper()
	tr, err := borg.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format() != borg.Format2019 {
		t.Fatalf("format %s, want 2019", tr.Format())
	}
	rec := &recorder{}
	var st borg.Stats
	m, err := tr.Machines()
	if err != nil {
		t.Fatal(err)
	}
	rec.machines = drain(t, m.Next)
	st.Machines = m.Stats()
	j, err := tr.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	rec.jobs = drain(t, j.Next)
	st.Jobs = j.Stats()
	k, err := tr.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	rec.tasks = drain(t, k.Next)
	st.Tasks = k.Stats()
	for _, c := range []io.Closer{m, j, k} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return rec, st
}

func drain[T any](t *testing.T, next func() (T, error)) []T {
	t.Helper()
	var out []T
	for {
		ev, err := next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
}

func small() Options {
	return Options{Seed: 7, Machines: 300, Duration: 40 * time.Minute, ShardRows: 4000}
}

// TestRoundTrip: the reader reads back exactly the records the generator
// wrote, field by field, with no malformed or out-of-order rows, and the
// report's counts are the reader's.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rep, want := generateRecorded(t, dir, small())
	got, st := readBack(t, dir)

	// Absent says which fields the source left out; the export leaves out
	// zeros, so it is the reader's inference, not a generated value.
	ignore := cmp.Options{
		cmpopts.IgnoreFields(borg.MachineEvent{}, "Absent"),
		cmpopts.IgnoreFields(borg.JobEvent{}, "Absent"),
		cmpopts.IgnoreFields(borg.TaskEvent{}, "Absent"),
	}
	if d := cmp.Diff(want.machines, got.machines, ignore); d != "" {
		t.Errorf("machine events differ (-written +read):\n%s", d)
	}
	if d := cmp.Diff(want.jobs, got.jobs, ignore); d != "" {
		t.Errorf("collection events differ (-written +read):\n%s", d)
	}
	if d := cmp.Diff(want.tasks, got.tasks, ignore); d != "" {
		t.Errorf("instance events differ (-written +read):\n%s", d)
	}

	for _, c := range []struct {
		ts    borg.TableStats
		rows  int64
		files int
	}{
		{st.Machines, rep.MachineRows, rep.MachineFiles},
		{st.Jobs, rep.JobRows, rep.JobFiles},
		{st.Tasks, rep.TaskRows, rep.TaskFiles},
	} {
		if c.ts.Rows != c.rows || c.ts.Files != c.files || c.ts.Malformed != 0 || c.ts.OutOfOrder != 0 {
			t.Errorf("%s: reader %+v; report %d rows in %d files", c.ts.Table, c.ts, c.rows, c.files)
		}
	}
	if rep.TaskFiles < 2 {
		t.Errorf("instance_events in %d shard(s); the test wants several (ShardRows %d, %d rows)", rep.TaskFiles, small().ShardRows, rep.TaskRows)
	}

	// the report's figures, recounted from what the reader sees
	var machineTypes [4]int64
	machines := map[int64]bool{}
	for _, e := range got.machines {
		machineTypes[e.Type]++
		machines[e.MachineID] = true
	}
	var jobTypes, taskTypes [12]int64
	jobs, users := map[int64]bool{}, map[string]bool{}
	var arrivals int64
	var tierJobs [numTiers]int64
	for _, e := range got.jobs {
		jobTypes[e.Type]++
		jobs[e.JobID] = true
		users[e.User] = true
		if e.Type == borg.EventSubmit && e.Time > 0 {
			arrivals++
			tierJobs[TierOf(e.Priority)]++
		}
	}
	tasks := map[[2]int64]bool{}
	var initialRunning int64
	for _, e := range got.tasks {
		taskTypes[e.Type]++
		tasks[[2]int64{e.JobID, e.TaskIndex}] = true
		if e.Type == borg.EventSchedule && e.Time == 0 {
			initialRunning++
		}
	}
	if machineTypes != rep.MachineEvents || jobTypes != rep.JobEvents || taskTypes != rep.TaskEvents {
		t.Errorf("event counts: read %v %v %v, report %v %v %v", machineTypes, jobTypes, taskTypes,
			rep.MachineEvents, rep.JobEvents, rep.TaskEvents)
	}
	if len(machines) != rep.Machines || int64(len(jobs)) != rep.Jobs || int64(len(tasks)) != rep.Tasks ||
		len(users) != rep.Users || arrivals != rep.Arrivals || tierJobs != rep.ArrivalTiers || initialRunning != rep.InitialTasks {
		t.Errorf("read %d machines, %d jobs, %d tasks, %d users, %d arrivals %v, %d running at start; report %+v",
			len(machines), len(jobs), len(tasks), len(users), arrivals, tierJobs, initialRunning, rep)
	}
}

// TestDeterministic: the same options give byte-identical files; another
// seed gives another trace.
func TestDeterministic(t *testing.T) {
	o := small()
	o.Cells = []string{"a", "b"}
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if _, err := Generate(d, o); err != nil {
			t.Fatal(err)
		}
	}
	o.Seed++
	if _, err := Generate(c, o); err != nil {
		t.Fatal(err)
	}
	files := treeFiles(t, a)
	if len(files) < 6 {
		t.Fatalf("only %d files: %v", len(files), files)
	}
	if d := cmp.Diff(files, treeFiles(t, b)); d != "" {
		t.Fatalf("file lists differ:\n%s", d)
	}
	for _, f := range files {
		fa, fb := readFile(t, filepath.Join(a, f)), readFile(t, filepath.Join(b, f))
		if !bytes.Equal(fa, fb) {
			t.Errorf("%s differs between two runs with the same options", f)
		}
	}
	// the two cells differ, and another seed differs
	f := "instance_events-000000000000.json.gz"
	if bytes.Equal(readFile(t, filepath.Join(a, "a", f)), readFile(t, filepath.Join(a, "b", f))) {
		t.Error("cells a and b are identical")
	}
	if bytes.Equal(readFile(t, filepath.Join(a, "a", f)), readFile(t, filepath.Join(c, "a", f))) {
		t.Error("seeds 7 and 8 give the same trace")
	}
}

func treeFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCalibration checks the published figures statistically on what the
// reader sees: the arrival rate, the machine count and heterogeneous
// capacities, the tier mix, the heavy tail of job sizes and task
// durations, tasks running at trace start, users, and evictions, failures
// and kills.
func TestCalibration(t *testing.T) {
	dir := t.TempDir()
	o := Options{Seed: 11, Machines: 1000, Duration: 4 * time.Hour}
	reps, err := Generate(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	rep := reps[0]
	got, st := readBack(t, dir)
	if st.Malformed() != 0 {
		t.Fatalf("malformed rows: %+v", st)
	}

	// machines: the count asked for, with the measured shapes
	shapesSeen := map[[2]float64]int{}
	ids := map[int64]bool{}
	for _, e := range got.machines {
		if e.Time == 0 && e.Type == borg.MachineAdd {
			shapesSeen[[2]float64{e.CPU, e.Memory}]++
			ids[e.MachineID] = true
		}
	}
	if len(ids) != o.Machines {
		t.Errorf("%d machines at trace start, want %d", len(ids), o.Machines)
	}
	if len(shapesSeen) < 4 {
		t.Errorf("machine shapes %v: want heterogeneous capacities", shapesSeen)
	}
	if f := float64(shapesSeen[[2]float64{0.5, 0.4995}]) / float64(o.Machines); math.Abs(f-0.535) > 0.04 {
		t.Errorf("share of the most common shape %.3f, want about 0.535", f)
	}

	// arrivals: 3,300 per hour per 12,000 machines, within 10% (the
	// Poisson count's standard deviation is 3%)
	wantRate := DefaultJobsPerHour * float64(o.Machines) / DefaultMachines
	var arrivals float64
	var tierJobs [numTiers]float64
	users := map[string]bool{}
	for _, e := range got.jobs {
		if e.Type == borg.EventSubmit && e.Time > 0 {
			arrivals++
			tierJobs[TierOf(e.Priority)]++
			users[e.User] = true
		}
	}
	if rate := arrivals / o.Duration.Hours(); math.Abs(rate-wantRate) > 0.1*wantRate {
		t.Errorf("arrival rate %.0f jobs/hour, want %.0f ± 10%%", rate, wantRate)
	}
	for i, n := range tierJobs {
		if f := n / arrivals; math.Abs(f-tiers[i].share) > 0.04 {
			t.Errorf("tier %s: %.3f of the jobs, want %.2f ± 0.04", TierNames[i], f, tiers[i].share)
		}
	}
	if len(users) < 100 {
		t.Errorf("%d users submitted jobs, want many", len(users))
	}

	// per job: requested CPU × run time inside the window; per task: run
	// lengths of runs that end in the window
	type key struct{ job, index int64 }
	started := map[key]int64{}
	use := map[int64]float64{}
	var runs []float64
	var initialRunning int
	var ends [12]int
	end := rep.End.Microseconds()
	for _, e := range got.tasks {
		k := key{e.JobID, e.TaskIndex}
		switch {
		case e.Type == borg.EventSubmit:
			if _, ok := use[e.JobID]; !ok {
				use[e.JobID] = 0
			}
		case e.Type == borg.EventSchedule:
			started[k] = max(e.Time, WindowStart.Microseconds())
			if e.Time == 0 {
				initialRunning++
			}
		case e.Type.Ends():
			ends[e.Type]++
			if s, ok := started[k]; ok {
				use[e.JobID] += e.CPURequest * float64(e.Time-s)
				if s > WindowStart.Microseconds() {
					runs = append(runs, float64(e.Time-s)/1e6)
				}
				delete(started, k)
			}
		}
	}
	cpuOf := map[key]float64{}
	for _, e := range got.tasks {
		cpuOf[key{e.JobID, e.TaskIndex}] = e.CPURequest
	}
	for k, s := range started {
		use[k.job] += cpuOf[k] * float64(end-s)
	}
	var uses []float64
	for _, u := range use {
		uses = append(uses, u)
	}
	share := exactTop1(uses)
	if share <= 0.5 {
		t.Errorf("the top 1%% of jobs hold %.1f%% of the requested CPU-time, want most of it", 100*share)
	}
	if math.Abs(share-rep.Top1CPU) > 0.03 {
		t.Errorf("report says the top 1%% hold %.3f, the trace says %.3f", rep.Top1CPU, share)
	}

	slices.Sort(runs)
	p50, p99 := runs[len(runs)/2], runs[len(runs)*99/100]
	if p99 < 20*p50 {
		t.Errorf("task run lengths p50 %.0fs p99 %.0fs: want a heavy tail (p99 > 20 x p50)", p50, p99)
	}
	if initialRunning < o.Machines {
		t.Errorf("%d tasks running at trace start, want many", initialRunning)
	}
	for _, typ := range []borg.EventType{borg.EventEvict, borg.EventFail, borg.EventKill, borg.EventFinish} {
		if ends[typ] == 0 {
			t.Errorf("no %s events", typ)
		}
	}
	if ends[borg.EventEvict]+ends[borg.EventFail] > ends[borg.EventFinish] {
		t.Errorf("evictions and failures should be occasional: %v", ends)
	}
}

func exactTop1(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	slices.Reverse(s)
	k := (len(s) + 99) / 100
	var top, total float64
	for i, x := range s {
		total += x
		if i < k {
			top += x
		}
	}
	return top / total
}

func TestDefaultArrivalRateScalesWithMachines(t *testing.T) {
	for _, c := range []struct {
		machines int
		want     float64
	}{{0, 3300}, {12000, 3300}, {1200, 330}, {24000, 6600}} {
		o, err := Options{Machines: c.machines}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		if o.JobsPerHour != c.want {
			t.Errorf("%d machines: %g jobs per hour, want %g", c.machines, o.JobsPerHour, c.want)
		}
	}
}

// TestMemoryDoesNotGrowWithEvents: what the generator holds (planned
// actions, live tasks) depends on the cell, not on the length of the
// trace.
func TestMemoryDoesNotGrowWithEvents(t *testing.T) {
	peak := func(d time.Duration) (acts, tasks int, rows int64) {
		o, err := Options{Seed: 3, Machines: 100, Duration: d}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		c := newCell(o, "", &counter{})
		rep, err := c.generate()
		if err != nil {
			t.Fatal(err)
		}
		return c.peakActs, c.peakTasks, rep.TaskRows
	}
	a1, t1, r1 := peak(6 * time.Hour)
	a4, t4, r4 := peak(24 * time.Hour)
	// about 4x the events; heavy-tailed job sizes make one cell's count
	// vary (seed 3 gives 2.9x), so at least twice
	if r4 < 2*r1 {
		t.Fatalf("rows %d and %d: the longer trace should have about 4x the events", r1, r4)
	}
	if a4 > 2*a1 || t4 > 2*t1 {
		t.Errorf("6h: peak %d actions, %d tasks; 24h: %d actions, %d tasks: memory grows with the trace", a1, t1, a4, t4)
	}
}

type counter struct{ n int64 }

func (c *counter) machine(*borg.MachineEvent) error { c.n++; return nil }
func (c *counter) job(*borg.JobEvent) error         { c.n++; return nil }
func (c *counter) task(*borg.TaskEvent) error       { c.n++; return nil }
func (c *counter) close() error                     { return nil }

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Duration: -time.Hour},
		{Duration: MaxDuration + time.Hour},
		{Machines: -1},
		{Machines: MaxMachines + 1},
		{JobsPerHour: -5},
		{JobsPerHour: math.NaN()},
		{InitialFill: 0.99},
		{InitialFill: math.NaN()},
		{ShardRows: -1},
		{Cells: []string{"a", "a"}},
		{Cells: []string{"../x"}},
		{Cells: []string{""}},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		_, err := Generate(dir, o)
		if !errors.Is(err, ErrBadOptions) {
			t.Errorf("%+v: error %v, want a rejection", o, err)
		}
		if _, serr := os.Stat(dir); serr == nil {
			t.Errorf("%+v: rejected, but wrote %s", o, dir)
		}
	}
}

// TestUnwritableDirectory: a directory that cannot be created is an
// error naming it, not a panic.
func TestUnwritableDirectory(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Generate(filepath.Join(f, "sub"), small())
	if err == nil || errors.Is(err, ErrBadOptions) {
		t.Fatalf("error %v, want an I/O error", err)
	}
}

func TestTailShare(t *testing.T) {
	var ts tailShare
	var v []float64
	for i := 1; i <= 10000; i++ {
		x := math.Pow(float64(i), 3) // a steep tail
		if i%10 == 0 {
			x = 0
		}
		ts.add(x)
		v = append(v, x)
	}
	if got, want := ts.top1(), exactTop1(v); math.Abs(got-want) > 0.01 {
		t.Errorf("estimate %.4f, exact %.4f", got, want)
	}
	var empty tailShare
	if empty.top1() != 0 {
		t.Error("empty share not 0")
	}
}
