package metrics

import (
	"bufio"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/core/snapshot"
	"github.com/paddock-sched/paddock/internal/resource"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

const testConfig = `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            maxapplications: 5
            resources:
              guaranteed: {vcore: 2}
              max: {vcore: 8, memory: 10Gi}
          - name: b
`

// scrape reads the text exposition into series -> value, series being
// the line's name with its label set as printed.
func scrape(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/ws/v1/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape status %d: %s", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("content type %q", ct)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(rec.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			t.Fatalf("bad exposition line %q", line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("bad value in %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

func want(t *testing.T, got map[string]float64, series string, v float64) {
	t.Helper()
	x, ok := got[series]
	if !ok {
		t.Errorf("series %s missing", series)
		return
	}
	if x != v {
		t.Errorf("%s = %v, want %v", series, x, v)
	}
}

func res(kv map[string]int64) *si.Resource {
	out := &si.Resource{Resources: map[string]*si.Quantity{}}
	for k, v := range kv {
		out.Resources[k] = &si.Quantity{Value: v}
	}
	return out
}

// setUp returns a manual scheduler service wired to fresh metrics, with
// one RM registered.
func setUp(t *testing.T) (*rmproxy.Service, *Metrics) {
	t.Helper()
	svc := rmproxy.NewManual(clock.NewVirtual(time.Unix(1000, 0)))
	m := New(SnapshotSource{Service: svc}, nil)
	svc.SetHooks(m.Hooks())
	if _, err := svc.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm", Config: testConfig}, callback.Nop{}); err != nil {
		t.Fatal(err)
	}
	return svc, m
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestMetricsFollowSchedulerState(t *testing.T) {
	svc, m := setUp(t)
	got := scrape(t, m)
	want(t, got, `yunikorn_scheduler_application_submission_total{result="new"}`, 0)
	want(t, got, `yunikorn_scheduler_container_allocation_attempt_total{state="error"}`, 0)
	want(t, got, `yunikorn_scheduler_node{state="active"}`, 0)
	want(t, got, `yunikorn_queue_resource{partition="default",queue="root.a",resource="vcore",state="max"}`, 8000)
	want(t, got, `yunikorn_queue_resource{partition="default",queue="root.a",resource="vcore",state="guaranteed"}`, 2000)
	want(t, got, `yunikorn_queue_resource{partition="default",queue="root.a",resource="apps",state="maxRunningApps"}`, 5)
	if _, ok := got[`go_goroutines`]; !ok {
		t.Error("Go runtime collector missing")
	}
	if _, ok := got[`process_start_time_seconds`]; !ok {
		t.Error("process collector missing")
	}

	node := func(id string, action si.NodeInfo_ActionFromRM) *si.NodeInfo {
		return &si.NodeInfo{NodeID: id, Action: action, SchedulableResource: res(map[string]int64{"vcore": 4000, "memory": 8 << 30})}
	}
	must(t, svc.UpdateNode(&si.NodeRequest{RmID: "rm", Nodes: []*si.NodeInfo{
		node("n1", si.NodeInfo_CREATE), node("n2", si.NodeInfo_CREATE), node("n3", si.NodeInfo_CREATE_DRAIN)}}))
	must(t, svc.UpdateApplication(&si.ApplicationRequest{RmID: "rm", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", PartitionName: "default", Ugi: &si.UserGroupInformation{User: "u"}},
		{ApplicationID: "app2", QueueName: "root.a", PartitionName: "default"}, // no user: rejected
		{ApplicationID: "app3", QueueName: "root.nope", PartitionName: "default", Ugi: &si.UserGroupInformation{User: "u"}},
	}}))
	svc.Cycle()
	ask := func(key string, vcore int64) *si.Allocation {
		return &si.Allocation{AllocationKey: key, ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(map[string]int64{"vcore": vcore})}
	}
	must(t, svc.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Allocations: []*si.Allocation{
		ask("k1", 3000), ask("k2", 1000), ask("k3", 1000), ask("big", 100000)}}))
	svc.Cycle()

	got = scrape(t, m)
	want(t, got, `yunikorn_scheduler_application_submission_total{result="new"}`, 3)
	want(t, got, `yunikorn_scheduler_application_submission_total{result="accepted"}`, 1)
	want(t, got, `yunikorn_scheduler_application_submission_total{result="rejected"}`, 2)
	want(t, got, `yunikorn_scheduler_container_allocation_attempt_total{state="allocated"}`, 3)
	want(t, got, `yunikorn_scheduler_node{state="active"}`, 2)
	want(t, got, `yunikorn_scheduler_node{state="draining"}`, 1)
	want(t, got, `yunikorn_scheduler_application_total{state="running"}`, 1)
	want(t, got, `yunikorn_queue_app{partition="default",queue="root.a",state="running"}`, 1)
	want(t, got, `yunikorn_queue_app_total{partition="default",queue="root.a",state="rejected"}`, 1)
	want(t, got, `yunikorn_queue_resource{partition="default",queue="root.a",resource="vcore",state="allocated"}`, 5000)
	want(t, got, `yunikorn_queue_resource{partition="default",queue="root.a",resource="vcore",state="pending"}`, 100000)
	want(t, got, `yunikorn_queue_container_total{partition="default",queue="root.a",state="allocated"}`, 3)
	want(t, got, `yunikorn_root_a_queue_container{state="allocated"}`, 3) // the reference's per-queue name
	// node usage: 5 cores placed on two 4-core nodes, binpacking or not:
	// one node in (70%,80%] or (90%,100%], the other in one of the lower
	// buckets; the draining node is empty; memory untouched everywhere
	var vcoreNodes, busy float64
	for i, b := range bucketNames {
		v := got[`yunikorn_scheduler_vcore_node_usage_total{range="`+b+`"}`]
		vcoreNodes += v
		if i > 0 {
			busy += v
		}
	}
	if vcoreNodes != 3 || busy != 2 {
		t.Errorf("vcore usage buckets: %v nodes, %v busy; want 3 and 2", vcoreNodes, busy)
	}
	want(t, got, `yunikorn_scheduler_memory_node_usage_total{range="[0,10%]"}`, 3)
	if got[`yunikorn_scheduler_scheduling_cycle_milliseconds_count`] < 2 || got[`yunikorn_scheduler_scheduling_latency_milliseconds_count`] != 1 {
		t.Errorf("cycle count %v, latency count %v", got[`yunikorn_scheduler_scheduling_cycle_milliseconds_count`],
			got[`yunikorn_scheduler_scheduling_latency_milliseconds_count`])
	}

	// the RM releases an allocation and cancels the big ask, then removes
	// the app; a node goes
	must(t, svc.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Releases: &si.AllocationReleasesRequest{AllocationsToRelease: []*si.AllocationRelease{
		{PartitionName: "default", ApplicationID: "app1", AllocationKey: "k2"},
		{PartitionName: "default", ApplicationID: "app1", AllocationKey: "big"}}}}))
	svc.Cycle()
	got = scrape(t, m)
	want(t, got, `yunikorn_scheduler_container_allocation_attempt_total{state="released"}`, 1)
	want(t, got, `yunikorn_queue_container_total{partition="default",queue="root.a",state="released"}`, 1)
	want(t, got, `yunikorn_root_a_queue_container{state="released"}`, 1)
	want(t, got, `yunikorn_queue_resource{partition="default",queue="root.a",resource="vcore",state="allocated"}`, 4000)

	must(t, svc.UpdateNode(&si.NodeRequest{RmID: "rm", Nodes: []*si.NodeInfo{{NodeID: "n3", Action: si.NodeInfo_DECOMISSION}}}))
	svc.Cycle()
	got = scrape(t, m)
	want(t, got, `yunikorn_scheduler_node{state="draining"}`, 0)
	want(t, got, `yunikorn_scheduler_node{state="decommissioned"}`, 1)
}

func TestQueueGaugesGoWithTheQueueCountersStay(t *testing.T) {
	svc, m := setUp(t)
	must(t, svc.UpdateNode(&si.NodeRequest{RmID: "rm", Nodes: []*si.NodeInfo{{NodeID: "n1", Action: si.NodeInfo_CREATE,
		SchedulableResource: res(map[string]int64{"vcore": 4000})}}}))
	must(t, svc.UpdateApplication(&si.ApplicationRequest{RmID: "rm", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.b", PartitionName: "default", Ugi: &si.UserGroupInformation{User: "u"}}}}))
	svc.Cycle()
	must(t, svc.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Allocations: []*si.Allocation{
		{AllocationKey: "k1", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(map[string]int64{"vcore": 1000})}}}))
	svc.Cycle()
	// the app ends: its allocation is released and it is removed
	must(t, svc.UpdateApplication(&si.ApplicationRequest{RmID: "rm", Remove: []*si.RemoveApplicationRequest{
		{ApplicationID: "app1", PartitionName: "default"}}}))
	svc.Cycle()
	got := scrape(t, m)
	if got[`yunikorn_queue_app_total{partition="default",queue="root.b",state="completed"}`]+
		got[`yunikorn_queue_app_total{partition="default",queue="root.b",state="failed"}`] != 1 {
		t.Fatalf("terminal counter of root.b not 1: completed %v failed %v",
			got[`yunikorn_queue_app_total{partition="default",queue="root.b",state="completed"}`],
			got[`yunikorn_queue_app_total{partition="default",queue="root.b",state="failed"}`])
	}
	terminal := got[`yunikorn_queue_app_total{partition="default",queue="root.b",state="completed"}`]

	// reload without root.b: its gauges go, its terminal counter stays
	must(t, svc.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "rm", Config: `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
`}))
	for range 3 {
		svc.Cycle()
	}
	got = scrape(t, m)
	gone := false
	must(t, svc.Inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm", "default")
		_, ok := p.Tree().Queue("root.b")
		gone = !ok
	}))
	if !gone {
		t.Fatal("root.b still exists after the reload")
	}
	if _, ok := got[`yunikorn_queue_app{partition="default",queue="root.a",state="new"}`]; !ok {
		t.Error("gauges of root.a missing")
	}
	for s := range got {
		if strings.Contains(s, `queue="root.b"`) && !strings.HasPrefix(s, QueueAppTotal) && !strings.HasPrefix(s, QueueContainer) {
			t.Errorf("gauge of removed queue still exported: %s", s)
		}
	}
	if got[`yunikorn_queue_app_total{partition="default",queue="root.b",state="completed"}`] != terminal {
		t.Errorf("terminal counter lost after queue removal")
	}
}

// TestQueuePreemptingState: a queue's resources held by victims being
// preempted are the queue_resource state "preempting".
func TestQueuePreemptingState(t *testing.T) {
	var v resource.Vector
	v[0] = 1500
	snap := &snapshot.Snapshot{Partitions: []*snapshot.Partition{{
		Name: "default", Names: []string{"vcore"}, Root: &snapshot.Queue{Path: "root", Preempting: v},
	}}}
	st := FromSnapshot(snap)
	if len(st.Queues) != 1 || st.Queues[0].Resources["preempting"]["vcore"] != 1500 {
		t.Fatalf("queue state %+v, want preempting vcore 1500", st.Queues)
	}
}
