package rest

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/history"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// Issue 14 item 24: what the web UI and REST clients written for YuniKorn
// read from applications, queues, nodes and the history.

const conformanceConfig = `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: gang
          - name: hard
          - name: waiting
            resources:
              max: {vcore: 1}
          - name: idle
`

// conformanceCluster: a gang application holding two placeholders and a
// real allocation (Running), a Hard gang that timed out (Failed), an
// application whose ask its queue's max holds back (Accepted), an empty
// queue, and two foreign allocations on n1.
func conformanceCluster(t *testing.T) (*rmproxy.Service, *clock.Virtual) {
	t.Helper()
	clk := clock.NewVirtual(start)
	s := rmproxy.NewManual(clk)
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm-1", Config: conformanceConfig}, callback.Nop{}); err != nil {
		t.Fatal(err)
	}
	s.UpdateNode(&si.NodeRequest{RmID: "rm-1", Nodes: []*si.NodeInfo{
		{NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(8000, 16<<30)},
	}})
	podTags := func(ns, pod string) map[string]string {
		return map[string]string{common.DomainK8s + common.GroupMeta + common.KeyNamespace: ns,
			common.DomainK8s + common.GroupMeta + common.KeyPodName: pod}
	}
	proxyTags := podTags("kube-system", "kube-proxy-n1")
	proxyTags[common.Foreign] = common.AllocTypeStatic
	proxyTags[common.CreationTime] = "1700000000"
	otherTags := podTags("default", "other-pod")
	otherTags[common.Foreign] = common.AllocTypeDefault
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Allocations: []*si.Allocation{
		{AllocationKey: "proxy", NodeID: "n1", ResourcePerAlloc: res(100, 1<<20), Priority: 2000001000, AllocationTags: proxyTags},
		{AllocationKey: "other", NodeID: "n1", ResourcePerAlloc: res(200, 1<<20), AllocationTags: otherTags},
	}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm-1", New: []*si.AddApplicationRequest{
		{ApplicationID: "gang", QueueName: "root.gang", Ugi: ugi("alice"), PlaceholderAsk: res(2000, 2<<30),
			GangSchedulingStyle: "Soft", ExecutionTimeoutMilliSeconds: 3_600_000},
		{ApplicationID: "hard", QueueName: "root.hard", Ugi: ugi("bob"), PlaceholderAsk: res(20000, 2<<30),
			GangSchedulingStyle: "Hard", ExecutionTimeoutMilliSeconds: 10_000},
		{ApplicationID: "waiting", QueueName: "root.waiting", Ugi: ugi("carol")},
	}})
	ph := func(app, key string, cpu int64) *si.Allocation {
		return &si.Allocation{AllocationKey: key, ApplicationID: app, ResourcePerAlloc: res(cpu, 1<<30), Placeholder: true, TaskGroupName: "tg"}
	}
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm-1", Allocations: []*si.Allocation{
		ph("gang", "ph-1", 1000), ph("gang", "ph-2", 1000),
		{AllocationKey: "real", ApplicationID: "gang", ResourcePerAlloc: res(500, 1<<30)},
		ph("hard", "hph-1", 10000), ph("hard", "hph-2", 10000),
		{AllocationKey: "w-1", ApplicationID: "waiting", ResourcePerAlloc: res(2000, 1<<20)},
	}})
	s.Cycle()
	clk.Advance(11 * time.Second)
	s.Cycle()
	return s, clk
}

func getJSON(t *testing.T, s *rmproxy.Service, o Options, path string, v any) {
	t.Helper()
	w := do(t, New(s, o), request{path: path})
	if w.Code != 200 {
		t.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
	}
	if err := json.Unmarshal(w.Body.Bytes(), v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

func TestConformanceAppStates(t *testing.T) {
	s, _ := conformanceCluster(t)
	for id, want := range map[string]string{"gang": "Running", "hard": "Failed", "waiting": "Accepted"} {
		var a AppInfo
		getJSON(t, s, Options{}, "/ws/v1/partition/default/application/"+id, &a)
		if a.State != want {
			t.Fatalf("application %s is %s, want %s (the scenario is broken)", id, a.State, want)
		}
	}
}

// TestFailedAppsAreCompleted: the reference keeps failed applications in
// the partition's completed list, so applications/completed lists them
// beside the completed ones (and the web UI finds them there).
func TestFailedAppsAreCompleted(t *testing.T) {
	s, _ := conformanceCluster(t)
	var apps []AppInfo
	getJSON(t, s, Options{}, "/ws/v1/partition/default/applications/completed", &apps)
	if len(apps) != 1 || apps[0].ApplicationID != "hard" || apps[0].State != "Failed" {
		t.Errorf("applications/completed = %+v, want the Failed application hard", apps)
	}
}

// TestUsedResourceExcludesPlaceholders: an application's usedResource is
// its real allocations; its placeholders show in placeholderData and the
// allocations list.
func TestUsedResourceExcludesPlaceholders(t *testing.T) {
	s, _ := conformanceCluster(t)
	var a AppInfo
	getJSON(t, s, Options{}, "/ws/v1/partition/default/application/gang", &a)
	if a.UsedResource["vcore"] != 500 || a.UsedResource["memory"] != 1<<30 {
		t.Errorf("usedResource = %v, want the real allocation only (vcore 500, memory 1Gi)", a.UsedResource)
	}
	placeholders := 0
	for _, x := range a.Allocations {
		if x.Placeholder {
			placeholders++
		}
	}
	if placeholders != 2 || len(a.PlaceholderData) != 1 || a.PlaceholderData[0].Count != 2 {
		t.Errorf("allocations %+v placeholderData %+v: want both placeholders listed", a.Allocations, a.PlaceholderData)
	}
}

// TestCurrentPriorityOfIdleQueue: a queue with nothing pending reports the
// reference's sentinel, the smallest int32.
func TestCurrentPriorityOfIdleQueue(t *testing.T) {
	s, _ := conformanceCluster(t)
	var q QueueInfo
	getJSON(t, s, Options{}, "/ws/v1/partition/default/queue/root.idle", &q)
	if q.CurrentPriority != math.MinInt32 {
		t.Errorf("currentPriority of an idle queue = %d, want %d", q.CurrentPriority, math.MinInt32)
	}
	getJSON(t, s, Options{}, "/ws/v1/partition/default/queue/root.waiting", &q)
	if q.CurrentPriority != 0 {
		t.Errorf("currentPriority of a queue with an ask of priority 0 = %d, want 0", q.CurrentPriority)
	}
}

// TestHistoryCountsRunningApps: history/apps is the reference's running
// applications gauge (the web UI's chart is "Running Applications"): an
// Accepted application waiting for room and a Failed one do not count.
func TestHistoryCountsRunningApps(t *testing.T) {
	s, clk := conformanceCluster(t)
	h := history.New(10)
	snap, err := s.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	h.Add(history.Count(snap, clk.Now()))
	var out []AppHistoryInfo
	getJSON(t, s, Options{History: h}, "/ws/v1/history/apps", &out)
	if len(out) != 1 || out[0].TotalApplications != "1" {
		t.Errorf("history/apps = %+v, want one sample of 1 running application", out)
	}
}

// TestForeignAllocationFields: a node's foreignAllocations carry the RM's
// tags (the web UI shows namespace/podName from them), the priority, the
// creation time and preemptable (false for static, true for default).
func TestForeignAllocationFields(t *testing.T) {
	s, _ := conformanceCluster(t)
	var n NodeInfo
	getJSON(t, s, Options{}, "/ws/v1/partition/default/node/n1", &n)
	if len(n.ForeignAllocations) != 2 {
		t.Fatalf("foreignAllocations = %+v, want 2", n.ForeignAllocations)
	}
	byKey := map[string]ForeignInfo{}
	for _, f := range n.ForeignAllocations {
		byKey[f.AllocationKey] = f
	}
	proxy, other := byKey["proxy"], byKey["other"]
	if proxy.AllocationTags[common.DomainK8s+common.GroupMeta+common.KeyPodName] != "kube-proxy-n1" ||
		proxy.AllocationTags[common.DomainK8s+common.GroupMeta+common.KeyNamespace] != "kube-system" ||
		proxy.AllocationTags[common.Foreign] != common.AllocTypeStatic {
		t.Errorf("proxy tags = %v, want the RM's tags", proxy.AllocationTags)
	}
	if proxy.Priority != "2000001000" || proxy.Preemptable || proxy.NodeID != "n1" || proxy.Resource["vcore"] != 100 {
		t.Errorf("proxy = %+v, want priority 2000001000, not preemptable, on n1, vcore 100", proxy)
	}
	if proxy.AllocationTime != time.Unix(1700000000, 0).UnixNano() {
		t.Errorf("proxy allocationTime = %d, want its creationTime tag", proxy.AllocationTime)
	}
	if other.AllocationTags[common.DomainK8s+common.GroupMeta+common.KeyPodName] != "other-pod" || !other.Preemptable || other.Priority != "0" {
		t.Errorf("other = %+v, want its pod name tag, preemptable, priority 0", other)
	}
	if other.AllocationTime != start.UnixNano() {
		t.Errorf("other allocationTime = %d, want when it was reported (%d)", other.AllocationTime, start.UnixNano())
	}
}
