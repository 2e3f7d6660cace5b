package replay

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// classFixture: one big machine; at 600 s a free job submits 50 tasks
// with one request, and 50 one-task free jobs one task each; with
// alike false the 50-task job's requests all differ.
func classFixture(t *testing.T, alike bool) string {
	dir := t.TempDir()
	writeTable(t, dir, "machine_events", "0,1,0,p,1,1")
	jobs := []string{"600000000,,1,0,ann,0,j,l"}
	var tasks []string
	for i := range 50 {
		cpu := 0.001
		if !alike {
			cpu += float64(i) * 0.00001
		}
		tasks = append(tasks, fmt.Sprintf("600000000,,1,%d,,0,ann,0,0,%g,0.001,0,0", i, cpu))
	}
	for j := range 50 {
		jobs = append(jobs, fmt.Sprintf("600000000,,%d,0,bob,0,j,l", 100+j))
		tasks = append(tasks, fmt.Sprintf("600000000,,%d,0,,0,bob,0,0,0.001,0.001,0,0", 100+j))
	}
	writeTable(t, dir, "job_events", jobs...)
	writeTable(t, dir, "task_events", tasks...)
	return dir
}

// The scheduler lets through ClassRate equivalence classes a second: a
// job's tasks with one request go through together, as one class; 50
// one-task jobs wait their turn, five classes a second; and the 50 tasks
// of a job whose requests all differ are 50 classes.
func TestClassThroughput(t *testing.T) {
	run := func(alike bool, classRate float64) []time.Duration {
		t.Helper()
		s, err := Run(Options{Trace: classFixture(t, alike), End: 700 * time.Second, Verify: true, SubmitLatency: time.Second,
			TaskLatency: -1, TailTiers: []string{}, SchedRate: 1000, SchedBurst: 1000, ClassRate: classRate, ClassBurst: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Delays[0]) != 100 {
			t.Fatalf("placed %d free tasks, want 100", len(s.Delays[0]))
		}
		return slices.Sorted(slices.Values(s.Delays[0]))
	}
	sec := time.Second
	count := func(d []time.Duration, v time.Duration) int {
		n := 0
		for _, x := range d {
			if x == v {
				n++
			}
		}
		return n
	}
	// 601 s: the 50-task job's class and 4 one-task jobs; then 5 jobs a
	// second, the last at 611 s
	d := run(true, 5)
	if count(d, sec) != 54 || d[len(d)-1] != 11*sec {
		t.Errorf("alike: %d placed after 1 s (want 54), longest %v (want 11s)", count(d, sec), d[len(d)-1])
	}
	// 100 classes, five a second: the last at 620 s
	d = run(false, 5)
	if count(d, sec) != 5 || d[len(d)-1] != 20*sec {
		t.Errorf("unlike: %d placed after 1 s (want 5), longest %v (want 20s)", count(d, sec), d[len(d)-1])
	}
	// no class limit: all at 601 s
	if d = run(false, -1); d[len(d)-1] != sec {
		t.Errorf("no class limit: longest %v", d[len(d)-1])
	}
}
