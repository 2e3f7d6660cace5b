package replay

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// spreadFixture: a full-size machine 1 and a quarter machine 2; job 2
// submits three small tasks at 600 s with the different-machines
// restriction set to dm; task 0 ends at 650 s.
func spreadFixture(t *testing.T, dm string) string {
	dir := t.TempDir()
	writeTable(t, dir, "machine_events", "0,1,0,p,1,1", "0,2,0,p,0.25,0.25")
	writeTable(t, dir, "job_events", "600000000,,2,0,bob,0,j2,l2")
	writeTable(t, dir, "task_events",
		"600000000,,2,0,,0,bob,0,2,0.01,0.01,0,"+dm,
		"600000000,,2,1,,0,bob,0,2,0.01,0.01,0,"+dm,
		"600000000,,2,2,,0,bob,0,2,0.01,0.01,0,"+dm,
		"600500000,,2,0,1,1,bob,0,2,0.01,0.01,0,"+dm,
		"650000000,,2,0,1,4,bob,0,2,0.01,0.01,0,"+dm,
	)
	return dir
}

// allocNodes returns the node of each task's placement in a decision log.
func allocNodes(log string) map[string]string {
	nodes := map[string]string{}
	for _, l := range strings.Split(log, "\n") {
		if f := strings.Fields(l); len(f) == 4 && f[1] == "alloc" {
			nodes[f[2]] = f[3]
		}
	}
	return nodes
}

// A task with the trace's different-machines restriction is placed on no
// machine where a task of its job runs: with two machines the third task
// waits until a task of the job ends. Without the restriction all three
// are placed at once.
func TestDifferentMachines(t *testing.T) {
	run := func(dm string) (*Summary, map[string]string) {
		var log bytes.Buffer
		s, err := Run(Options{Trace: spreadFixture(t, dm), End: 700 * time.Second, Verify: true, Log: &log,
			SubmitLatency: time.Second, TaskLatency: -1, TailTiers: []string{}, SchedRate: -1})
		if err != nil {
			t.Fatal(err)
		}
		return s, allocNodes(log.String())
	}
	late := func(s *Summary) (n int) {
		for _, d := range s.Delays[1] {
			if d >= 50*time.Second {
				n++
			}
		}
		return n
	}
	s, nodes := run("0")
	if len(nodes) != 3 || len(s.Delays[1]) != 3 || late(s) != 0 {
		t.Fatalf("without the restriction: placements %v, delays %v, want all three at 601 s", nodes, s.Delays[1])
	}

	s, nodes = run("1")
	a, b, c := nodes["2-0-1"], nodes["2-1-1"], nodes["2-2-1"]
	if len(nodes) != 3 || a == b || c == "" || c == a && c == b {
		t.Fatalf("with the restriction: placements %v", nodes)
	}
	// two placed at 601 s on the two machines; the third when task 0
	// ended (it ran 49.5 s in the trace, so at 650.5 s), on its machine
	if late(s) != 1 || len(s.Delays[1]) != 3 || c != a {
		t.Fatalf("with the restriction: delays %v, placements %v, want the third on task 0's machine after 650 s", s.Delays[1], nodes)
	}
}
