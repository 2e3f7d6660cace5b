package rmproxy

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/health"
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
	t    *testing.T
	s    *Service
	v    *clock.Virtual
	c    chooser
	rec  *recorder
	step int
}

// fuzzConfig has a second partition, a gang-friendly queue and limits, so
// that fuzzed messages reach more of the scheduler.
const fuzzConfig = `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources:
              max: {vcore: 6000}
          - name: b
            limits:
              - limit: two apps
                users: ["*"]
                maxapplications: 2
  - name: gpu
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: train
`

func newFuzzRig(t *testing.T, b []byte) *fuzzRig {
	r := &fuzzRig{t: t, v: clock.NewVirtual(time.Unix(1000, 0)), c: &fuzzBytes{b: b}, rec: newRecorder()}
	r.s = NewManual(r.v)
	t.Cleanup(r.s.Stop)
	for _, id := range []string{"rm1", "rm2"} {
		if _, err := r.s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: id, Config: fuzzConfig}, r.rec); err != nil {
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
func (r *fuzzRig) done() bool { return len(r.c.(*fuzzBytes).b) == 0 || r.t.Failed() }

func (r *fuzzRig) pick(options ...string) string { return options[r.c.IntN(len(options))] }

func (r *fuzzRig) rm() string        { return r.pick("rm1", "rm2", "rm1", "ghost", "") }
func (r *fuzzRig) node() string      { return r.pick("n0", "n1", "n2", "n3", "") }
func (r *fuzzRig) appID() string     { return r.pick("app0", "app1", "app2", "app3", "") }
func (r *fuzzRig) key() string       { return r.pick("k0", "k1", "k2", "k3", "k4", "f0", "f1", "") }
func (r *fuzzRig) partition() string { return r.pick("", "default", "gpu", "DEFAULT", "nope") }
func (r *fuzzRig) queue() string {
	return r.pick("root.a", "root.b", "root", "root.nope", "", "root.a.x", "root.train", "a")
}
func (r *fuzzRig) user() string      { return r.pick("alice", "bob", "", "carol") }
func (r *fuzzRig) taskGroup() string { return r.pick("", "", "tg1", "tg2") }
func (r *fuzzRig) count(n int) int   { return r.c.IntN(n) }
func (r *fuzzRig) chance(n int) bool { return r.c.IntN(n) == 0 }
func (r *fuzzRig) ugi() *si.UserGroupInformation {
	if r.chance(5) {
		return nil
	}
	return &si.UserGroupInformation{User: r.user(), Groups: []string{r.pick("dev", "", "ops")}}
}

// res is a resource from ordinary, odd and hostile ones.
func (r *fuzzRig) res() *si.Resource {
	switch r.c.IntN(8) {
	case 0:
		return nil
	case 1:
		return &si.Resource{}
	case 2:
		return &si.Resource{Resources: map[string]*si.Quantity{"vcore": nil}}
	case 3:
		return &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: -1}}}
	case 4:
		return hugeRes(r.c)
	case 5:
		return &si.Resource{Resources: map[string]*si.Quantity{r.pick("gpu", "", "x/y", "pods"): {Value: int64(r.count(4))}}}
	default:
		return res(int64(r.count(5))*1000, int64(r.count(5))<<30)
	}
}

func (r *fuzzRig) nodeInfo() *si.NodeInfo {
	if r.chance(10) {
		return nil
	}
	n := &si.NodeInfo{NodeID: r.node(), Action: si.NodeInfo_ActionFromRM(r.count(8)), SchedulableResource: r.res()}
	if !r.chance(3) {
		n.Attributes = map[string]string{common.NodePartition: r.partition(), common.HostName: n.NodeID}
	}
	return n
}

func (r *fuzzRig) allocation() *si.Allocation {
	if r.chance(10) {
		return nil
	}
	x := &si.Allocation{
		AllocationKey: r.key(), ApplicationID: r.appID(), ResourcePerAlloc: r.res(),
		Priority: int32(r.count(3)) - 1, PartitionName: r.partition(), TaskGroupName: r.taskGroup(),
		Placeholder: r.chance(4), Originator: r.chance(4),
	}
	if r.chance(2) {
		x.NodeID = r.node() // a recovered allocation
	}
	if r.chance(4) {
		x.AllocationTags = map[string]string{common.Foreign: r.pick(common.AllocTypeDefault, common.AllocTypeStatic, "")}
	}
	if r.chance(5) {
		x.PreemptionPolicy = &si.PreemptionPolicy{AllowPreemptSelf: r.chance(2), AllowPreemptOther: r.chance(2)}
	}
	return x
}

func (r *fuzzRig) release() *si.AllocationRelease {
	if r.chance(10) {
		return nil
	}
	return &si.AllocationRelease{
		ApplicationID: r.appID(), AllocationKey: r.key(), PartitionName: r.partition(),
		TerminationType: si.TerminationType(r.count(6)), Message: r.pick("", "done"),
	}
}

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
	fuzzMessages(f, func(r *fuzzRig) {
		req := &si.NodeRequest{RmID: r.rm()}
		for range 1 + r.count(3) {
			req.Nodes = append(req.Nodes, r.nodeInfo())
		}
		_ = r.s.UpdateNode(req)
	})
}

func FuzzUpdateApplication(f *testing.F) {
	fuzzMessages(f, func(r *fuzzRig) {
		req := &si.ApplicationRequest{RmID: r.rm()}
		for range r.count(3) {
			a := &si.AddApplicationRequest{
				ApplicationID: r.appID(), QueueName: r.queue(), PartitionName: r.partition(), Ugi: r.ugi(),
				ExecutionTimeoutMilliSeconds: int64(r.count(3)) * 1000,
			}
			if r.chance(3) {
				a.PlaceholderAsk = r.res()
				a.GangSchedulingStyle = r.pick("Soft", "Hard", "", "odd")
			}
			if r.chance(3) {
				a.Tags = map[string]string{r.pick("namespace", "application.stateaware.disable", ""): r.pick("team1", "true", "")}
			}
			if r.chance(10) {
				a = nil
			}
			req.New = append(req.New, a)
		}
		for range r.count(2) {
			req.Remove = append(req.Remove, &si.RemoveApplicationRequest{ApplicationID: r.appID(), PartitionName: r.partition()})
		}
		_ = r.s.UpdateApplication(req)
	})
}

func FuzzUpdateAllocation(f *testing.F) {
	fuzzMessages(f, func(r *fuzzRig) {
		req := &si.AllocationRequest{RmID: r.rm()}
		for range r.count(4) {
			req.Allocations = append(req.Allocations, r.allocation())
		}
		if r.chance(2) {
			req.Releases = &si.AllocationReleasesRequest{}
			for range 1 + r.count(2) {
				req.Releases.AllocationsToRelease = append(req.Releases.AllocationsToRelease, r.release())
			}
		}
		_ = r.s.UpdateAllocation(req)
	})
}

// configs are the configurations the configuration and registration
// targets choose from, besides the text the fuzzer makes.
var configs = []string{
	"",
	cfg,
	fuzzConfig,
	strings.Replace(fuzzConfig, "max: {vcore: 6000}", "max: {vcore: 1000, gpu: 1}", 1),
	strings.Replace(fuzzConfig, "  - name: gpu", "  - name: other", 1),
	"partitions: []",
	"partitions: [{name: default, queues: [{name: root, queues: [{name: a}, {name: a}]}]}]",
	"not: yaml: [",
}

func FuzzUpdateConfiguration(f *testing.F) {
	for i, s := range seeds {
		f.Add(s, configs[i%len(configs)])
	}
	f.Add([]byte{1, 1, 1}, "partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n          - name: z\n")
	f.Fuzz(func(t *testing.T, b []byte, text string) {
		r := newFuzzRig(t, b)
		for first := true; first || !r.done(); first = false {
			req := &si.UpdateConfigurationRequest{RmID: r.rm(), Config: text}
			if !first || r.chance(2) {
				req.Config = configs[r.count(len(configs))]
			}
			if r.chance(3) {
				req.ExtraConfig = map[string]string{r.pick("log.level", "event.trackingEnabled", "health.checkInterval", "x"): r.pick("debug", "false", "1s", "-1", "")}
			}
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
			req := &si.RegisterResourceManagerRequest{RmID: id, Config: configs[r.count(len(configs))], PolicyGroup: r.pick("queues", "")}
			if !first {
				req.RmID = r.pick("rm1", "rm2", "rm3", id)
			}
			if _, err := r.s.RegisterResourceManager(req, r.rec); err == nil {
				// the new registration resyncs part of what it had
				r.s.UpdateNode(&si.NodeRequest{RmID: req.RmID, Nodes: []*si.NodeInfo{r.nodeInfo()}})
				r.s.UpdateAllocation(&si.AllocationRequest{RmID: req.RmID, Allocations: []*si.Allocation{r.allocation()}})
			}
			r.check()
		}
	})
}
