package replay

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/paddock-sched/paddock/internal/sim/borg"
)

// realSample2019 is the borg package's fixture of two real ClusterData2019
// row samples (instance_events and collection_events, 999 rows each).
const realSample2019 = "../sim/borg/testdata/clusterdata2019-sample"

// The two real 2019 samples are not an event stream: the replay refuses
// them, saying so, rather than replay unordered rows without machines.
func TestReplayRefusesRowSamples(t *testing.T) {
	_, err := Run(Options{Trace: realSample2019})
	var ns *borg.NotStreamError
	if !errors.As(err, &ns) || len(ns.Missing) != 1 || ns.Missing[0] != "machine_events" {
		t.Fatalf("Run: %v, want a NotStreamError naming machine_events", err)
	}

	// Given a machine, the replay stops at the first row that goes back in
	// time, and says where.
	dir := t.TempDir()
	for _, f := range []string{"instance_events/instance-sample.csv", "collection_events/collection-sample.csv"} {
		data, err := os.ReadFile(filepath.Join(realSample2019, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	machine := `{"time":"0","machine_id":"1","type":"1","capacity":{"cpus":"0.5","memory":"0.5"}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "machine_events-000000000000.json"), []byte(machine), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(Options{Trace: dir})
	var oe *borg.OrderError
	if !errors.As(err, &oe) || sum != nil || oe.Table != "instance_events" {
		t.Fatalf("Run: %v (summary %v), want an OrderError in instance_events", err, sum != nil)
	}
}
