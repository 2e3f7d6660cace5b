package rmproxy

import (
	"context"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/health"
	"github.com/paddock-sched/paddock/internal/sigen"
)

// The SI fuzz targets (issue #18): one per handler of the in-process SI,
// each sending messages the fuzzer chooses to a scheduler that already
// holds nodes, applications, asks and allocations of two RMs, and checking
// after every message and scheduling cycle that no total is negative or
// wraps, node availability and every roll-up match (checkTotals), the
// consistency health check passes, the health report answers, and Verify
// holds. Plain `go test` runs their seed corpus; a
// longer run is
//
//	go test ./internal/rmproxy -run '^$' -fuzz FuzzUpdateNode -fuzztime 60s
//
// (one target per run), with the figures in docs/reliability.md.

// fuzzRig is a scheduler with state for the fuzz targets to work on.
type fuzzRig struct {
	*sigen.Gen
	t    *testing.T
	s    *Service
	v    *clock.Virtual
	in   *sigen.Bytes
	rec  *recorder
	step int
}

func newFuzzRig(t *testing.T, b []byte) *fuzzRig {
	in := &sigen.Bytes{B: b}
	r := &fuzzRig{Gen: &sigen.Gen{C: in}, t: t, v: clock.NewVirtual(time.Unix(1000, 0)), in: in, rec: newRecorder()}
	r.s = NewManual(r.v)
	t.Cleanup(r.s.Stop)
	for _, id := range []string{"rm1", "rm2"} {
		if _, err := r.s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: id, Config: sigen.Config}, r.rec); err != nil {
			t.Fatal(err)
		}
		r.s.UpdateNode(&si.NodeRequest{RmID: id, Nodes: []*si.NodeInfo{
			{NodeID: "n0", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)},
			{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)},
		}})
		r.s.UpdateApplication(&si.ApplicationRequest{RmID: id, New: []*si.AddApplicationRequest{
			{ApplicationID: "app0", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
			{ApplicationID: "app1", QueueName: "root.b", Ugi: &si.UserGroupInformation{User: "bob"}},
		}})
		r.s.Cycle()
		r.s.UpdateAllocation(&si.AllocationRequest{RmID: id, Allocations: []*si.Allocation{
			{AllocationKey: "k0", ApplicationID: "app0", ResourcePerAlloc: res(1000, 1<<30)},
			{AllocationKey: "k1", ApplicationID: "app1", ResourcePerAlloc: res(1000, 1<<30)},
			{AllocationKey: "k2", ApplicationID: "app1", ResourcePerAlloc: res(3000, 1<<30)},
			{AllocationKey: "f0", NodeID: "n1", ResourcePerAlloc: res(500, 1<<30), AllocationTags: map[string]string{common.Foreign: common.AllocTypeDefault}},
		}})
	}
	r.check()
	r.rec.mu.Lock()
	made := len(r.rec.allocs)
	r.rec.mu.Unlock()
	if made < 4 {
		t.Fatalf("the rig allocated %d asks, want at least 4 (2 per RM)", made)
	}
	return r
}

// check runs a cycle a second later and checks the state.
func (r *fuzzRig) check() {
	r.t.Helper()
	r.v.Advance(time.Second)
	r.s.Cycle()
	checkTotals(r.t, r.s, r.step)
	snap, err := r.s.Snapshot(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	report := health.Evaluate(snap, snap.Counters)
	if len(report.HealthChecks) == 0 {
		r.t.Fatalf("step %d: the health report has no checks", r.step)
	}
	for _, c := range report.HealthChecks {
		// (the negative-resources check also reports a node the RM shrank
		// below what it holds; checkTotals checks every total itself)
		if c.Name == "Consistency of data" && !c.Succeeded {
			r.t.Errorf("step %d: %s: %s", r.step, c.Name, c.DiagnosisMessage)
		}
	}
	r.step++
}

// done reports whether the input is used up.
func (r *fuzzRig) done() bool { return r.in.Done() || r.t.Failed() }

// seeds are inputs every target starts from: short and long, repetitive
// and varied.
var seeds = [][]byte{
	{},
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
	{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7},
	{1, 0, 6, 1, 2, 1, 4, 1, 1, 0, 5, 3, 2, 6, 2, 0, 1, 1, 1, 3, 1, 0, 2, 2, 4, 0, 1, 7, 1, 2, 0, 3},
	{3, 4, 2, 5, 1, 0, 2, 7, 6, 1, 4, 3, 2, 1, 0, 5, 4, 6, 3, 2, 1, 0, 7, 5, 3, 2, 4, 1, 6, 0, 2, 3, 5, 1, 4},
	[]byte("the quick brown fox jumps over the lazy dog, twice: the quick brown fox jumps over the lazy dog"),
}

// fuzzMessages runs step, one SI message drawn from the fuzzer's bytes,
// until the bytes run out, checking the state after each.
func fuzzMessages(f *testing.F, step func(r *fuzzRig)) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := newFuzzRig(t, b)
		for !r.done() {
			step(r)
			r.check()
		}
	})
}

func FuzzUpdateNode(f *testing.F) {
	fuzzMessages(f, func(r *fuzzRig) { _ = r.s.UpdateNode(r.NodeRequest(r.RM())) })
}

func FuzzUpdateApplication(f *testing.F) {
	fuzzMessages(f, func(r *fuzzRig) { _ = r.s.UpdateApplication(r.ApplicationRequest(r.RM())) })
}

func FuzzUpdateAllocation(f *testing.F) {
	fuzzMessages(f, func(r *fuzzRig) { _ = r.s.UpdateAllocation(r.AllocationRequest(r.RM())) })
}

func FuzzUpdateConfiguration(f *testing.F) {
	for i, s := range seeds {
		f.Add(s, sigen.Configs[i%len(sigen.Configs)])
	}
	f.Add([]byte{1, 1, 1}, "partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n          - name: z\n")
	f.Fuzz(func(t *testing.T, b []byte, text string) {
		r := newFuzzRig(t, b)
		for first := true; first || !r.done(); first = false {
			req := &si.UpdateConfigurationRequest{RmID: r.RM(), Config: text}
			if !first || r.Chance(2) {
				req.Config = sigen.Configs[r.Count(len(sigen.Configs))]
			}
			req.ExtraConfig = r.ExtraConfig()
			_ = r.s.UpdateConfiguration(req)
			r.check()
		}
	})
}

func FuzzRegisterResourceManager(f *testing.F) {
	for i, s := range seeds {
		f.Add(s, []string{"rm1", "rm3", "", "a/b", "rm2"}[i%5])
	}
	f.Fuzz(func(t *testing.T, b []byte, id string) {
		r := newFuzzRig(t, b)
		for first := true; first || !r.done(); first = false {
			req := &si.RegisterResourceManagerRequest{RmID: id, Config: sigen.Configs[r.Count(len(sigen.Configs))], PolicyGroup: r.Pick("queues", "")}
			if !first {
				req.RmID = r.Pick("rm1", "rm2", "rm3", id)
			}
			if _, err := r.s.RegisterResourceManager(req, r.rec); err == nil {
				// the new registration resyncs part of what it had
				r.s.UpdateNode(&si.NodeRequest{RmID: req.RmID, Nodes: []*si.NodeInfo{r.NodeInfo()}})
				r.s.UpdateAllocation(&si.AllocationRequest{RmID: req.RmID, Allocations: []*si.Allocation{r.Allocation()}})
			}
			r.check()
		}
	})
}
