package entrypoint

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/paddock-sched/paddock/callback"
)

type rm struct {
	callback.Nop
	allocated chan *si.Allocation
}

func (r *rm) UpdateAllocation(resp *si.AllocationResponse) error {
	for _, a := range resp.New {
		r.allocated <- a
	}
	return nil
}

func res(vcore int64) *si.Resource {
	return &si.Resource{Resources: map[string]*si.Quantity{common.CPU: {Value: vcore}}}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// drive registers the shim's way (partition "default", cluster ID as RM
// ID), adds a node, a foreign pod, an application and an ask, and waits
// for the allocation.
func drive(t *testing.T, sc *ServiceContext) {
	t.Helper()
	r := &rm{allocated: make(chan *si.Allocation, 1)}
	_, err := sc.RMProxy.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "mycluster", PolicyGroup: "queues"}, r)
	must(t, err)
	must(t, sc.RMProxy.UpdateNode(&si.NodeRequest{RmID: "mycluster", Nodes: []*si.NodeInfo{{
		NodeID: "node-1", Action: si.NodeInfo_CREATE, SchedulableResource: res(8000),
		Attributes: map[string]string{common.NodePartition: "default"},
	}}}))
	must(t, sc.RMProxy.UpdateAllocation(&si.AllocationRequest{RmID: "mycluster", Allocations: []*si.Allocation{{
		AllocationKey: "foreign-1", NodeID: "node-1", PartitionName: "default", ResourcePerAlloc: res(500),
		AllocationTags: map[string]string{common.Foreign: common.AllocTypeDefault},
	}}}))
	must(t, sc.RMProxy.UpdateApplication(&si.ApplicationRequest{RmID: "mycluster", New: []*si.AddApplicationRequest{{
		ApplicationID: "app-1", PartitionName: "default", Tags: map[string]string{"namespace": "ns"},
		Ugi: &si.UserGroupInformation{User: "u"},
	}}}))
	must(t, sc.RMProxy.UpdateAllocation(&si.AllocationRequest{RmID: "mycluster", Allocations: []*si.Allocation{{
		AllocationKey: "pod-1", ApplicationID: "app-1", PartitionName: "default", ResourcePerAlloc: res(1000),
	}}}))
	select {
	case <-r.allocated:
	case <-time.After(10 * time.Second):
		t.Fatal("no allocation")
	}
}

func TestStartAllServicesWithLogger(t *testing.T) {
	t.Setenv("PADDOCK_REST_ADDR", "127.0.0.1:0")
	core, logs := observer.New(zap.InfoLevel)
	sc := StartAllServicesWithLogger(zap.New(core), nil)
	defer sc.StopAll()
	if sc.RMProxy == nil || sc.Scheduler == nil || sc.Paddock == nil {
		t.Fatalf("service context incomplete: %+v", sc)
	}
	drive(t, sc)

	cc := sc.Scheduler.GetClusterContext()
	for _, name := range []string{"[mycluster]default", "default"} {
		app := cc.GetApplication("app-1", name)
		if app == nil {
			t.Fatalf("app-1 not found in %s", name)
		}
		if app.ApplicationID != "app-1" || app.CurrentState() != "Running" || len(app.GetAllAllocations()) != 1 || len(app.GetAllRequests()) != 0 {
			t.Errorf("%s: app %s state %s, %d allocations, %d asks", name, app.ApplicationID, app.CurrentState(), len(app.GetAllAllocations()), len(app.GetAllRequests()))
		}
		if got := app.GetAllAllocations()[0].GetAllocatedResource().ToProto().Resources[common.CPU].GetValue(); got != 1000 {
			t.Errorf("allocation vcore %d, want 1000", got)
		}
	}
	if cc.GetApplication("nope", "[mycluster]default") != nil || cc.GetApplication("app-1", "[other]default") != nil {
		t.Error("found what does not exist")
	}
	node := cc.GetNode("node-1", "[mycluster]default")
	if node == nil {
		t.Fatal("node-1 not found")
	}
	f := node.GetForeignAllocations()
	if len(f) != 1 || f[0].GetAllocationKey() != "foreign-1" || f[0].GetAllocatedResource().Resources[common.CPU] != 500 {
		t.Errorf("foreign allocations %+v", f)
	}
	p := cc.GetPartition("[mycluster]default")
	if p == nil || len(p.GetNodes()) != 1 || len(p.GetApplications()) != 1 {
		t.Fatalf("partition view wrong: %+v", p)
	}
	if cc.GetPartition("[mycluster]gpu") != nil {
		t.Error("an unknown partition was found")
	}
	// the partition view is live: a second app shows without a new lookup
	must(t, sc.RMProxy.UpdateApplication(&si.ApplicationRequest{RmID: "mycluster", New: []*si.AddApplicationRequest{{
		ApplicationID: "app-2", PartitionName: "default", Tags: map[string]string{"namespace": "ns"}, Ugi: &si.UserGroupInformation{User: "u"},
	}}}))
	deadline := time.Now().Add(10 * time.Second)
	for len(p.GetApplications()) != 2 {
		if time.Now().After(deadline) {
			t.Fatal("the partition view did not see app-2")
		}
		time.Sleep(10 * time.Millisecond)
	}

	// REST answers on the configured address, and the logs went to zap
	resp, err := http.Get("http://" + sc.Paddock.RESTAddr() + "/ws/v1/partition/default/nodes")
	must(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "node-1") {
		t.Errorf("REST nodes: %d %s", resp.StatusCode, b)
	}
	if logs.FilterMessage("resource manager registered").Len() == 0 {
		t.Errorf("no registration log through zap; got %d entries", logs.Len())
	}
}

// TestSecondCoreInOneProcess: the shim's tests start a core per test and
// never stop the old ones; a busy REST port must not stop the next one.
func TestSecondCoreInOneProcess(t *testing.T) {
	t.Setenv("PADDOCK_REST_ADDR", "127.0.0.1:0")
	first := StartAllServices()
	defer first.StopAll()
	t.Setenv("PADDOCK_REST_ADDR", first.Paddock.RESTAddr())
	second := StartAllServices()
	defer second.StopAll()
	if second.RMProxy == nil || second.Paddock.RESTAddr() != "" {
		t.Fatalf("second core: proxy %v, REST %q", second.RMProxy, second.Paddock.RESTAddr())
	}
	drive(t, second)
}

// A standby started for the shim answers its node registration, holds
// the application and its ask without deciding, and allocates once
// activated; Deactivate makes it a standby again.
func TestStartStandbyWithLogger(t *testing.T) {
	t.Setenv("PADDOCK_REST_ADDR", "off")
	sc := StartStandbyWithLogger(zap.NewNop(), nil)
	defer sc.StopAll()
	if !sc.Standby() {
		t.Fatal("not a standby")
	}
	go func() {
		// drive waits for the allocation: only an activation brings it,
		// once the ask is in (the application's view shows it)
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			app := sc.Scheduler.GetClusterContext().GetApplication("app-1", "default")
			if app != nil && len(app.GetAllRequests()) == 1 {
				break
			}
		}
		if app := sc.Scheduler.GetClusterContext().GetApplication("app-1", "default"); app == nil || len(app.GetAllAllocations()) != 0 {
			t.Error("the standby allocated, or lost the application")
		}
		if err := sc.Activate(); err != nil {
			t.Error(err)
		}
	}()
	drive(t, sc)
	if sc.Standby() {
		t.Fatal("still a standby after Activate")
	}
	sc.Deactivate()
	if !sc.Standby() {
		t.Fatal("Deactivate left it leading")
	}
	var none ServiceContext
	if none.Activate() == nil || none.Standby() {
		t.Error("a context whose scheduler did not start activates")
	}
}
