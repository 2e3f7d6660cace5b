package webui

import (
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"

	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/scheduler"
)

const queues = `
partitions:
  - name: default
    placementrules:
      - name: provided
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: prod
            resources:
              guaranteed: {vcore: 8, memory: 16Gi}
              max: {vcore: 32, memory: 64Gi}
          - name: batch
            resources:
              max: {vcore: 17, memory: 32Gi}
`

type counter struct {
	callback.Nop
	allocated chan int
}

func (c *counter) UpdateAllocation(r *si.AllocationResponse) error {
	c.allocated <- len(r.New)
	return nil
}

func res(vcore, memory int64) *si.Resource {
	return &si.Resource{Resources: map[string]*si.Quantity{common.CPU: {Value: vcore}, common.Memory: {Value: memory}}}
}

// populated starts Paddock with the UI and a cluster the pages have
// something to show on: 4 nodes (one with another scheduler's pod), 3
// applications in two queues with running and pending asks, and one
// completed application.
func populated(t *testing.T, uiDir string) *scheduler.Scheduler {
	t.Helper()
	s, err := scheduler.Start(scheduler.Options{RESTAddr: "127.0.0.1:0", UIDir: uiDir, SnapshotMaxAge: -1,
		LogHandler: slog.NewTextHandler(io.Discard, nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	api := s.API()
	c := &counter{allocated: make(chan int, 100)}
	if _, err := api.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "mycluster", PolicyGroup: "queues", Config: queues,
		BuildInfo: map[string]string{"version": "test"}}, c); err != nil {
		t.Fatal(err)
	}
	var nodes []*si.NodeInfo
	for i := range 4 {
		id := fmt.Sprintf("node-%d", i)
		nodes = append(nodes, &si.NodeInfo{NodeID: id, Action: si.NodeInfo_CREATE, SchedulableResource: res(8000, 16<<30),
			Attributes: map[string]string{common.NodePartition: "default", common.HostName: id, common.RackName: "rack-1", common.InstanceType: "m5.2xlarge"}})
	}
	must(t, api.UpdateNode(&si.NodeRequest{RmID: "mycluster", Nodes: nodes}))
	must(t, api.UpdateAllocation(&si.AllocationRequest{RmID: "mycluster", Allocations: []*si.Allocation{{
		AllocationKey: "kube-proxy-node-0", NodeID: "node-0", PartitionName: "default", ResourcePerAlloc: res(100, 128<<20),
		AllocationTags: map[string]string{common.Foreign: common.AllocTypeStatic, common.DomainK8s + common.GroupMeta + common.KeyPodName: "kube-proxy-node-0",
			common.DomainK8s + common.GroupMeta + common.KeyNamespace: "kube-system"},
	}}}))
	apps := []struct {
		id, queue string
		asks      int
		vcore     int64
	}{{"spark-etl", "root.prod", 6, 2000}, {"nightly-report", "root.batch", 12, 2000}, {"done-job", "root.batch", 1, 500}}
	var news []*si.AddApplicationRequest
	for _, a := range apps {
		news = append(news, &si.AddApplicationRequest{ApplicationID: a.id, QueueName: a.queue, PartitionName: "default",
			Ugi: &si.UserGroupInformation{User: "alice", Groups: []string{"dev"}}, Tags: map[string]string{"namespace": "default"}})
	}
	must(t, api.UpdateApplication(&si.ApplicationRequest{RmID: "mycluster", New: news}))
	time.Sleep(100 * time.Millisecond) // the applications are accepted before their asks arrive
	var asks []*si.Allocation
	for _, a := range apps {
		for i := range a.asks {
			key := fmt.Sprintf("%s-%d", a.id, i)
			asks = append(asks, &si.Allocation{AllocationKey: key, ApplicationID: a.id, PartitionName: "default", ResourcePerAlloc: res(a.vcore, 2<<30),
				AllocationTags: map[string]string{common.DomainK8s + common.GroupMeta + common.KeyPodName: key,
					common.DomainK8s + common.GroupMeta + common.KeyNamespace: "default", common.CreationTime: fmt.Sprint(time.Now().Unix())}})
		}
	}
	must(t, api.UpdateAllocation(&si.AllocationRequest{RmID: "mycluster", Allocations: asks}))
	got, want := 0, 6+8+1 // batch's max (17 cores) takes 8 of 12 and done-job
	deadline := time.After(10 * time.Second)
	for got < want {
		select {
		case n := <-c.allocated:
			got += n
		case <-deadline:
			t.Fatalf("%d allocations, want %d", got, want)
		}
	}
	// done-job finishes
	must(t, api.UpdateAllocation(&si.AllocationRequest{RmID: "mycluster", Releases: &si.AllocationReleasesRequest{
		AllocationsToRelease: []*si.AllocationRelease{{ApplicationID: "done-job", PartitionName: "default", TerminationType: si.TerminationType_STOPPED_BY_RM}}}}))
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
