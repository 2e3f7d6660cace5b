package replay

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/sim/borg"
	"github.com/paddock-sched/paddock/internal/sim/borg/gen"
)

// TestBatchSchedulerGate replays a synthetic 2019 trace whose batch jobs
// go through the batch scheduler (QUEUE, then ENABLE): no task of a queued
// job is placed before the trace enables the job, and every enabled job's
// tasks can be placed after it.
func TestBatchSchedulerGate(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.Generate(dir, gen.Options{Seed: 4, Machines: 150, Duration: 20 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	tr, err := borg.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := tr.Stream(borg.Window{})
	if err != nil {
		t.Fatal(err)
	}
	queued, enabled := map[int64]int64{}, map[int64]int64{} // job -> µs
	for {
		ev, err := st.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != borg.KindJob {
			continue
		}
		switch ev.Job.Type {
		case borg.EventQueue:
			queued[ev.Job.JobID] = ev.Time
		case borg.EventEnable:
			enabled[ev.Job.JobID] = ev.Time
		}
	}
	st.Close()
	if len(queued) == 0 || len(enabled) == 0 {
		t.Fatalf("the trace has %d QUEUE and %d ENABLE events; the test needs both", len(queued), len(enabled))
	}
	var log strings.Builder
	if _, err := Run(Options{Trace: dir, Interval: time.Second, Log: &log}); err != nil {
		t.Fatal(err)
	}
	var gatedAllocs int
	sc := bufio.NewScanner(strings.NewReader(log.String()))
	for sc.Scan() {
		f := strings.Fields(sc.Text()) // µs kind job-index-gen node
		if len(f) < 3 || f[1] != "alloc" {
			continue
		}
		at, _ := strconv.ParseInt(f[0], 10, 64)
		job, _ := strconv.ParseInt(strings.SplitN(f[2], "-", 2)[0], 10, 64)
		q, ok := queued[job]
		if !ok || at == 0 {
			continue
		}
		gatedAllocs++
		if e, ok := enabled[job]; !ok || at < e {
			t.Fatalf("task %s of job %d (queued at %d µs) placed at %d µs, before its ENABLE (%d µs, seen %v)", f[2], job, q, at, e, ok)
		}
	}
	if gatedAllocs == 0 {
		t.Fatal("no task of a queued job was placed: the gate never opened")
	}
}
