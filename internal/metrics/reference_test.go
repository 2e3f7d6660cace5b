package metrics

import (
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/latency"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// refFamily is one metric family of the reference (reference §6), written
// from the fact sheet: its name, its type, and its labels, each with the
// values the reference lists (nil: any value, such as a queue path).
type refFamily struct {
	name, typ string
	labels    map[string][]string
}

var (
	ranges   = []string{"[0,10%]", "(10%,20%]", "(20%,30%]", "(30%,40%]", "(40%,50%]", "(50%,60%]", "(60%,70%]", "(70%,80%]", "(80%,90%]", "(90%,100%]"}
	appState = []string{"new", "accepted", "running", "rejected", "failing", "failed", "resuming", "completing", "completed"}
)

var reference = []refFamily{
	{"yunikorn_scheduler_container_allocation_attempt_total", "COUNTER", map[string][]string{"state": {"allocated", "released", "rejected", "error"}}},
	{"yunikorn_scheduler_application_submission_total", "COUNTER", map[string][]string{"result": {"new", "accepted", "rejected"}}},
	{"yunikorn_scheduler_application_total", "GAUGE", map[string][]string{"state": {"running", "resuming", "failing", "completing", "completed", "failed"}}},
	{"yunikorn_scheduler_node", "GAUGE", map[string][]string{"state": {"active", "draining", "decommissioned", "failed"}}},
	{"yunikorn_scheduler_scheduling_latency_milliseconds", "HISTOGRAM", nil},
	{"yunikorn_scheduler_scheduling_cycle_milliseconds", "HISTOGRAM", nil},
	{"yunikorn_scheduler_node_sorting_latency_milliseconds", "HISTOGRAM", map[string][]string{"level": {"app", "queue"}}},
	{"yunikorn_scheduler_trynode_latency_milliseconds", "HISTOGRAM", nil},
	{"yunikorn_scheduler_trynode_evaluation_milliseconds", "HISTOGRAM", nil},
	{"yunikorn_scheduler_trypreemption_latency_milliseconds", "HISTOGRAM", nil},
	// <resource>_node_usage_total, one family per resource type in use
	{"yunikorn_scheduler_vcore_node_usage_total", "GAUGE", map[string][]string{"range": ranges}},
	{"yunikorn_scheduler_memory_node_usage_total", "GAUGE", map[string][]string{"range": ranges}},
	{"yunikorn_queue_app", "GAUGE", map[string][]string{"queue": nil, "state": appState}},
	{"yunikorn_queue_app_total", "COUNTER", map[string][]string{"queue": nil, "state": {"completed", "failed", "rejected"}}},
	{"yunikorn_queue_resource", "GAUGE", map[string][]string{"queue": nil, "resource": nil,
		"state": {"guaranteed", "max", "allocated", "pending", "preempting", "maxRunningApps"}}},
	// yunikorn_<sanitised queue path>_queue_container, one family per queue
	{"yunikorn_root_a_queue_container", "COUNTER", map[string][]string{"state": {"allocated", "released"}}},
}

// paddockLabels are the labels Paddock adds to reference families
// (docs/compatibility.md: queue paths repeat across partitions).
var paddockLabels = map[string]bool{"partition": true}

// notExported are reference families Paddock does not export, each a
// deliberate difference listed in docs/compatibility.md under the name
// given here.
var notExported = map[string]string{
	"yunikorn_runtime_go_mem_stats":            "yunikorn_runtime_go_*",
	"yunikorn_runtime_go_pause_ns":             "yunikorn_runtime_go_*",
	"yunikorn_runtime_go_pause_end":            "yunikorn_runtime_go_*",
	"yunikorn_runtime_go_alloc_bysize_maxsize": "yunikorn_runtime_go_*",
	"yunikorn_runtime_go_alloc_bysize_free":    "yunikorn_runtime_go_*",
	"yunikorn_runtime_go_alloc_bysize_malloc":  "yunikorn_runtime_go_*",
	"yunikorn_runtime_go_generic":              "yunikorn_runtime_go_*",
	// defined but never registered in the reference either
	"yunikorn_event_total_created": "yunikorn_event_total_*",
}

// referenceCluster drives a cluster through every state the reference's
// label values name: applications accepted, running, completed, failed
// (a Hard gang timing out) and rejected, allocations made and released,
// a preemption (queue b under its guarantee takes from queue a), nodes
// active, draining and decommissioned.
func referenceCluster(t *testing.T) (*rmproxy.Service, *Metrics) {
	t.Helper()
	clk := clock.NewVirtual(time.Unix(1000, 0))
	svc := rmproxy.NewManual(clk)
	m := New(SnapshotSource{Service: svc}, nil)
	svc.SetHooks(m.Hooks())
	must(t, func() error {
		_, err := svc.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm", Config: `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            maxapplications: 5
            resources:
              max: {vcore: 8}
          - name: b
            properties:
              preemption.delay: 1s
            resources:
              guaranteed: {vcore: 4}
`}, callback.Nop{})
		return err
	}())
	vcore := func(v int64) *si.Resource { return res(map[string]int64{"vcore": v, "memory": 1 << 20}) }
	nodeRes := res(map[string]int64{"vcore": 4000, "memory": 1 << 30})
	must(t, svc.UpdateNode(&si.NodeRequest{RmID: "rm", Nodes: []*si.NodeInfo{
		{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: nodeRes},
		{NodeID: "n2", Action: si.NodeInfo_CREATE_DRAIN, SchedulableResource: nodeRes},
		{NodeID: "n3", Action: si.NodeInfo_CREATE, SchedulableResource: nodeRes},
	}}))
	ugi := &si.UserGroupInformation{User: "u"}
	must(t, svc.UpdateApplication(&si.ApplicationRequest{RmID: "rm", New: []*si.AddApplicationRequest{
		{ApplicationID: "fill", QueueName: "root.a", PartitionName: "default", Ugi: ugi},
		{ApplicationID: "done", QueueName: "root.a", PartitionName: "default", Ugi: ugi},
		{ApplicationID: "gang", QueueName: "root.a", PartitionName: "default", Ugi: ugi, PlaceholderAsk: vcore(6000),
			GangSchedulingStyle: "Hard", ExecutionTimeoutMilliSeconds: 5000},
		{ApplicationID: "nope", QueueName: "root.nope", PartitionName: "default", Ugi: ugi},
	}}))
	ask := func(app, key string, v int64) *si.Allocation {
		return &si.Allocation{AllocationKey: key, ApplicationID: app, PartitionName: "default", ResourcePerAlloc: vcore(v)}
	}
	ph := ask("gang", "ph", 6000) // fits the queue, no node
	ph.Placeholder, ph.TaskGroupName = true, "tg"
	must(t, svc.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Allocations: []*si.Allocation{
		ask("fill", "f1", 2000), ask("fill", "f2", 2000), ask("done", "d1", 1000), ph}}))
	svc.Cycle()
	// done finishes; the gang times out and fails
	must(t, svc.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Releases: &si.AllocationReleasesRequest{AllocationsToRelease: []*si.AllocationRelease{
		{PartitionName: "default", ApplicationID: "done", AllocationKey: "d1", TerminationType: si.TerminationType_STOPPED_BY_RM}}}}))
	clk.Advance(6 * time.Second)
	svc.Cycle()
	clk.Advance(31 * time.Second) // Completing ends
	svc.Cycle()
	// b, under its guarantee, needs room that only a preemption of a's gives
	must(t, svc.UpdateApplication(&si.ApplicationRequest{RmID: "rm", New: []*si.AddApplicationRequest{
		{ApplicationID: "taker", QueueName: "root.b", PartitionName: "default", Ugi: ugi}}}))
	must(t, svc.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Allocations: []*si.Allocation{ask("taker", "t1", 2000), ask("fill", "f3", 2000), ask("fill", "f4", 2000)}}))
	svc.Cycle()
	clk.Advance(2 * time.Second)
	must(t, svc.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Allocations: []*si.Allocation{ask("taker", "t2", 2000)}}))
	svc.Cycle()
	clk.Advance(2 * time.Second)
	svc.Cycle()
	must(t, svc.UpdateNode(&si.NodeRequest{RmID: "rm", Nodes: []*si.NodeInfo{{NodeID: "n2", Action: si.NodeInfo_DECOMISSION}}}))
	svc.Cycle()
	return svc, m
}

// TestReferenceFamilies: every metric family of the reference is
// registered under its name, with its type and labels (Paddock's extra
// partition label aside), and with every label value the reference lists
// and no other; the histograms have the reference's buckets; the
// families Paddock leaves out are absent and listed in
// docs/compatibility.md.
func TestReferenceFamilies(t *testing.T) {
	_, m := referenceCluster(t)
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	type family struct {
		typ    string
		labels map[string]map[string]bool
		bounds [][]float64
	}
	got := map[string]*family{}
	for _, mf := range mfs {
		f := &family{typ: mf.GetType().String(), labels: map[string]map[string]bool{}}
		for _, x := range mf.GetMetric() {
			for _, l := range x.GetLabel() {
				if f.labels[l.GetName()] == nil {
					f.labels[l.GetName()] = map[string]bool{}
				}
				f.labels[l.GetName()][l.GetValue()] = true
			}
			if h := x.GetHistogram(); h != nil {
				var b []float64
				for _, x := range h.GetBucket() {
					b = append(b, x.GetUpperBound())
				}
				f.bounds = append(f.bounds, b)
			}
		}
		got[mf.GetName()] = f
	}
	for _, r := range reference {
		f, ok := got[r.name]
		if !ok {
			t.Errorf("%s: not exported", r.name)
			continue
		}
		if f.typ != r.typ {
			t.Errorf("%s: type %s, want %s", r.name, f.typ, r.typ)
		}
		for name, values := range f.labels {
			if _, ok := r.labels[name]; !ok && !paddockLabels[name] {
				t.Errorf("%s: label %s the reference does not have", r.name, name)
				continue
			}
			if want := r.labels[name]; want != nil {
				var extra []string
				for v := range values {
					if !slices.Contains(want, v) {
						extra = append(extra, v)
					}
				}
				if len(extra) > 0 {
					sort.Strings(extra)
					t.Errorf("%s: label %s has values %v the reference does not", r.name, name, extra)
				}
			}
		}
		for name, want := range r.labels {
			values, ok := f.labels[name]
			if !ok {
				t.Errorf("%s: label %s missing", r.name, name)
				continue
			}
			for _, v := range want {
				if !values[v] {
					t.Errorf("%s: no series with %s=%q", r.name, name, v)
				}
			}
		}
		for _, b := range f.bounds {
			if !slices.Equal(b, LatencyBuckets) {
				t.Errorf("%s: buckets %v, want %v", r.name, b, LatencyBuckets)
			}
		}
	}
	doc, err := os.ReadFile("../../docs/compatibility.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, listed := range notExported {
		if _, ok := got[name]; ok {
			t.Errorf("%s is exported: move it to the reference table", name)
		}
		if !strings.Contains(string(doc), "`"+listed+"`") {
			t.Errorf("%s: docs/compatibility.md does not list %s", name, listed)
		}
	}
}

// TestPhaseLatencies: the engine times its phases into the four
// histograms: queue and application choice once per decision at least,
// a node search per ask it placed, an RM node check per node it used,
// and the preemption attempt. (Sampling is the latency package's test.)
func TestPhaseLatencies(t *testing.T) {
	// time every occurrence, so the counts are exact
	sampling := latency.SampleEvery
	t.Cleanup(func() { latency.SampleEvery = sampling })
	for i := range latency.SampleEvery {
		latency.SampleEvery[i] = 1
	}
	_, m := referenceCluster(t)
	got := scrape(t, m)
	allocated := got[`yunikorn_scheduler_container_allocation_attempt_total{state="allocated"}`]
	if allocated < 4 {
		t.Fatalf("%v allocations: the scenario is broken", allocated)
	}
	if got[`yunikorn_queue_resource{partition="default",queue="root.a",resource="vcore",state="preempting"}`] != 2000 {
		t.Fatalf("no preemption from root.a: the scenario is broken")
	}
	for series, least := range map[string]float64{
		`yunikorn_scheduler_node_sorting_latency_milliseconds_count{level="queue"}`: allocated,
		`yunikorn_scheduler_node_sorting_latency_milliseconds_count{level="app"}`:   allocated,
		`yunikorn_scheduler_trynode_evaluation_milliseconds_count`:                  allocated,
		`yunikorn_scheduler_trynode_latency_milliseconds_count`:                     allocated,
		`yunikorn_scheduler_trypreemption_latency_milliseconds_count`:               1,
	} {
		if got[series] < least {
			t.Errorf("%s = %v, want at least %v", series, got[series], least)
		}
		sum := strings.Replace(series, "_count", "_sum", 1)
		if got[sum] <= 0 || got[sum] > 10 {
			t.Errorf("%s = %v s, want a positive time in seconds", sum, got[sum])
		}
		inf := strings.Replace(strings.Replace(series, "_count", "_bucket", 1), "}", `,le="+Inf"}`, 1)
		if !strings.Contains(series, "{") {
			inf = strings.Replace(series, "_count", "_bucket", 1) + `{le="+Inf"}`
		}
		if got[inf] != got[series] {
			t.Errorf("%s = %v, want the count %v", inf, got[inf], got[series])
		}
	}
}
