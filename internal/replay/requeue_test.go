package replay

import (
	"strings"
	"testing"
	"time"
)

// requeueConfig lets batch preempt free at once: batch is guaranteed the
// cell, free nothing.
const requeueConfig = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: batch
            properties: {priority.offset: "100", preemption.delay: "1s"}
            resources:
              guaranteed: {vcore: 1000000, memory: 1000Ti}
          - name: free
`

// A task the scheduler preempts is asked for again at once and placed when
// room comes back; its second wait counts as a delay.
func TestPreemptedTaskAskedAgain(t *testing.T) {
	dir := t.TempDir()
	// one machine with room for one of the two tasks
	writeTable(t, dir, "machine_events", "0,1,0,p,0.5,0.5")
	writeTable(t, dir, "job_events",
		"600000000,,1,0,ann,0,j1,l1",
		"610000000,,2,0,bob,0,j2,l2",
	)
	writeTable(t, dir, "task_events",
		// free task: submitted at 600 s, runs in the trace until 900 s
		"600000000,,1,0,,0,ann,0,0,0.4,0.4,0,0",
		"600500000,,1,0,1,1,ann,0,0,0.4,0.4,0,0",
		// batch task: submitted at 610 s, runs 90 s in the trace
		"610000000,,2,0,,0,bob,0,2,0.4,0.4,0,0",
		"610500000,,2,0,1,1,bob,0,2,0.4,0.4,0,0",
		"700500000,,2,0,1,4,bob,0,2,0.4,0.4,0,0",
		"900000000,,1,0,1,4,ann,0,0,0.4,0.4,0,0",
	)
	var log strings.Builder
	s, err := Run(Options{Trace: dir, End: 1500 * time.Second, Verify: true, Config: requeueConfig,
		SubmitLatency: time.Second, TailTiers: []string{}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if s.Preempted != 1 {
		t.Fatalf("preempted %d, want 1\n%s", s.Preempted, log.String())
	}
	free := tierIndex("free")
	if s.Scheduled != 3 || len(s.Delays[free]) != 2 || s.RunningAtEnd != 0 || s.PendingAtEnd != 0 {
		t.Fatalf("scheduled %d, free delays %v, running at end %d, pending at end %d\n%s",
			s.Scheduled, s.Delays[free], s.RunningAtEnd, s.PendingAtEnd, log.String())
	}
	// the second wait lasts until the batch task's run of 90 s ends
	if d := s.Delays[free][1]; d < 80*time.Second || d > 100*time.Second {
		t.Errorf("free task's wait after the preemption %v, want about 90 s\n%s", d, log.String())
	}
	if !strings.Contains(log.String(), "preempted") || !strings.Contains(log.String(), "1-0-2") {
		t.Errorf("decision log lacks the preemption or the new ask key 1-0-2:\n%s", log.String())
	}
}
