package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/health"
	"github.com/paddock-sched/paddock/internal/logging"
)

const token = "s3cret"

// TestEndToEnd is the acceptance path: a remote RM connects over
// gRPC, registers, adds nodes, an application and asks, receives the
// allocations on its stream, and the same state reads back over REST
// (metrics and events); a configuration pushed through the Admin service
// applies, log levels included.
func TestEndToEnd(t *testing.T) {
	logs := quiet()
	s := start(t, Options{Token: token, TokenForReads: true, Logs: logs})

	// REST wants the token
	var e struct {
		StatusCode int `json:"status_code"`
	}
	if err := json.Unmarshal(get(t, s, "/ws/v1/metrics", "", http.StatusUnauthorized), &e); err != nil || e.StatusCode != 401 {
		t.Fatalf("unauthorised body: %+v %v", e, err)
	}
	get(t, s, "/ws/v1/metrics", "wrong", http.StatusUnauthorized)

	// an event stream, open before anything happens
	req, _ := http.NewRequest("GET", "http://"+s.RESTAddr()+"/ws/v1/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("stream: %v %v", resp, err)
	}
	defer resp.Body.Close()
	stream := bufio.NewReader(resp.Body)
	first, _ := stream.ReadBytes('\n')
	if !strings.Contains(string(first), s.Events().InstanceUUID()) {
		t.Fatalf("first stream line %q", first)
	}

	// a client without the token is refused
	bad := dial(t, s.GRPCAddr(), "")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := bad.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "rm"}, newRecorder()); err == nil || !strings.Contains(err.Error(), "Unauthenticated") {
		t.Fatalf("register without token: %v", err)
	}

	c := dial(t, s.GRPCAddr(), token)
	rec := newRecorder()
	must(t, c.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "rm", Config: testConfig, PolicyGroup: "queues"}, rec))
	must(t, c.UpdateNode(nodes("rm", "n1", "n2")))
	rec.await(t, "nodes accepted", func() bool { return len(rec.accNodes) == 2 })
	must(t, c.UpdateApplication(app("rm", "app1", "root.a")))
	rec.await(t, "app accepted", func() bool { return rec.accApps["app1"] })
	must(t, c.UpdateAllocation(asks("rm", "app1", keys("ask", 6)...)))
	rec.await(t, "6 allocations", func() bool { return len(rec.allocs) == 6 })
	used := map[string]int{}
	rec.mu.Lock()
	for _, a := range rec.allocs {
		used[a.NodeID]++
	}
	rec.mu.Unlock()
	if used["n1"]+used["n2"] != 6 || used["n1"] > 4 || used["n2"] > 4 {
		t.Fatalf("allocations per node %v", used)
	}

	// the same state over REST: metrics (snapshots may trail the
	// allocations by one step)
	var m map[string]float64
	deadline := time.Now().Add(10 * time.Second)
	for {
		m = metricsOf(t, get(t, s, "/ws/v1/metrics", token, 200))
		if m[`yunikorn_queue_resource{partition="default",queue="root.a",resource="vcore",state="allocated"}`] == 6000 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for series, want := range map[string]float64{
		`yunikorn_scheduler_container_allocation_attempt_total{state="allocated"}`:                       6,
		`yunikorn_scheduler_application_submission_total{result="accepted"}`:                             1,
		`yunikorn_scheduler_node{state="active"}`:                                                        2,
		`yunikorn_scheduler_application_total{state="running"}`:                                          1,
		`yunikorn_queue_app{partition="default",queue="root.a",state="running"}`:                         1,
		`yunikorn_queue_resource{partition="default",queue="root.a",resource="vcore",state="allocated"}`: 6000,
		`yunikorn_queue_container_total{partition="default",queue="root.a",state="allocated"}`:           6,
		`paddock_event_streams`:  1,
		`paddock_si_queue_limit`: 50000,
	} {
		if m[series] != want {
			t.Errorf("%s = %v, want %v", series, m[series], want)
		}
	}
	if m[`paddock_event_ring_records`] < 6 {
		t.Errorf("event ring holds %v records, want the allocations' events at least", m[`paddock_event_ring_records`])
	}
	if used["n1"] > 0 && m[`yunikorn_scheduler_vcore_node_usage_total{range="[0,10%]"}`] != 0 && used["n2"] > 0 {
		t.Errorf("node usage: both nodes are used but a node is in the lowest bucket: %v", m)
	}

	// the state dump lists the open event stream
	var dump struct {
		EventStreams []struct {
			Name      string
			CreatedAt time.Time
		} `json:"eventStreams"`
	}
	if err := json.Unmarshal(get(t, s, "/debug/fullstatedump", token, 200), &dump); err != nil {
		t.Fatal(err)
	}
	if len(dump.EventStreams) != 1 || dump.EventStreams[0].Name != "127.0.0.1" || dump.EventStreams[0].CreatedAt.IsZero() {
		t.Errorf("state dump eventStreams %+v, want the one open stream from 127.0.0.1", dump.EventStreams)
	}

	// and over the REST API: the queue, the application, the nodes
	var q struct {
		Allocated map[string]int64 `json:"allocatedResource"`
		Running   int              `json:"runningApps"`
	}
	if err := json.Unmarshal(get(t, s, "/ws/v1/partition/default/queue/root.a", token, 200), &q); err != nil || q.Allocated["vcore"] != 6000 {
		t.Fatalf("queue root.a over REST: %+v %v", q, err)
	}
	var a struct {
		State       string `json:"applicationState"`
		Allocations []struct {
			Key  string `json:"allocationKey"`
			Node string `json:"nodeId"`
		} `json:"allocations"`
	}
	if err := json.Unmarshal(get(t, s, "/ws/v1/partition/default/application/app1", token, 200), &a); err != nil || a.State != "Running" || len(a.Allocations) != 6 {
		t.Fatalf("app1 over REST: %+v %v", a, err)
	}
	rec.mu.Lock()
	for _, x := range a.Allocations {
		if got := rec.allocs[x.Key]; got == nil || got.NodeID != x.Node {
			t.Errorf("REST allocation %s on %s, the RM has %v", x.Key, x.Node, got)
		}
	}
	rec.mu.Unlock()
	var ns []struct {
		ID          string           `json:"nodeID"`
		Allocated   map[string]int64 `json:"allocated"`
		Allocations []any            `json:"allocations"`
	}
	if err := json.Unmarshal(get(t, s, "/ws/v1/partition/default/nodes", token, 200), &ns); err != nil || len(ns) != 2 {
		t.Fatalf("nodes over REST: %+v %v", ns, err)
	}
	for _, n := range ns {
		if int(n.Allocated["vcore"]) != 1000*used[n.ID] || len(n.Allocations) != used[n.ID] {
			t.Errorf("node %s over REST: %v and %d allocations, the RM has %d", n.ID, n.Allocated, len(n.Allocations), used[n.ID])
		}
	}

	// events: one APP_ALLOC per allocation, in the batch and on the stream
	b := batch(t, s, token)
	allocEvents := map[string]bool{}
	for _, r := range b.EventRecords {
		if r.Type == 2 && r.EventChangeType == 2 && r.EventChangeDetail == 200 && r.ObjectID == "app1" {
			allocEvents[r.ReferenceID] = true
		}
	}
	if len(allocEvents) != 6 || b.InstanceUUID != s.Events().InstanceUUID() {
		t.Fatalf("APP_ALLOC events for %v (uuid %s)", allocEvents, b.InstanceUUID)
	}
	streamed := map[string]bool{}
	for len(streamed) < 6 {
		line, err := stream.ReadBytes('\n')
		if err != nil {
			t.Fatalf("stream ended after %v: %v", streamed, err)
		}
		var r struct {
			Type, EventChangeDetail int
			ObjectID, ReferenceID   string
		}
		_ = json.Unmarshal(line, &r)
		if r.Type == 2 && r.EventChangeDetail == 200 {
			streamed[r.ReferenceID] = true
		}
	}

	// a new configuration through the Admin service: queue root.c and a
	// debug level for the rmproxy logger
	if logs.Level(logging.RMProxy) != slog.LevelInfo {
		t.Fatalf("initial level %v", logs.Level(logging.RMProxy))
	}
	if iv := s.Health().Interval(); iv != health.DefaultInterval {
		t.Fatalf("initial health check interval %v", iv)
	}
	must(t, c.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "rm", Config: testConfig + "          - name: c\n",
		ExtraConfig: map[string]string{"log.core.rmproxy.level": "debug", "event.RESTResponseSize": "2", "health.checkInterval": "5s"}}))
	if iv := s.Health().Interval(); iv != 5*time.Second {
		t.Fatalf("health check interval %v after the update, want 5s", iv)
	}
	if logs.Level(logging.RMProxy) != slog.LevelDebug || logs.Level(logging.RPC) != slog.LevelInfo {
		t.Fatalf("levels after update: rmproxy %v rpc %v", logs.Level(logging.RMProxy), logs.Level(logging.RPC))
	}
	if b := batch(t, s, token); len(b.EventRecords) != 2 {
		t.Fatalf("RESTResponseSize not applied: %d records", len(b.EventRecords))
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		m = metricsOf(t, get(t, s, "/ws/v1/metrics", token, 200))
		if _, ok := m[`yunikorn_queue_app{partition="default",queue="root.c",state="running"}`]; ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("queue root.c missing from metrics after the update")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// shutdown ends the stream and the RM's streams
	shut, cancelShut := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelShut()
	must(t, s.Shutdown(shut))
	if _, err := io.Copy(io.Discard, stream); err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Logf("stream after shutdown: %v", err)
	}
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("RM streams still open after shutdown")
	}
}

// TestReconnectResync cuts the RM's connection mid-run; the RM registers
// again and resyncs its state (nodes, the application, the allocations it
// holds, its remaining asks), and scheduling goes on from there.
func TestReconnectResync(t *testing.T) {
	s := start(t, Options{})
	p := newProxy(t, s.GRPCAddr())
	c := dial(t, p.addr(), "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rec := newRecorder()
	reg := &si.RegisterResourceManagerRequest{RmID: "rm", Config: testConfig}
	must(t, c.Register(ctx, reg, rec))
	must(t, c.UpdateNode(nodes("rm", "n1", "n2")))
	rec.await(t, "nodes", func() bool { return len(rec.accNodes) == 2 })
	must(t, c.UpdateApplication(app("rm", "app1", "root.b")))
	rec.await(t, "app", func() bool { return rec.accApps["app1"] })
	must(t, c.UpdateAllocation(asks("rm", "app1", keys("first", 4)...)))
	rec.await(t, "4 allocations", func() bool { return len(rec.allocs) == 4 })

	p.cut()
	select {
	case <-c.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("client did not notice the cut")
	}
	if c.Err() == nil {
		t.Fatal("Err is nil after a cut")
	}

	// resync: register again, then replay the state the RM holds
	rec.mu.Lock()
	held := make([]*si.Allocation, 0, len(rec.allocs))
	for _, a := range rec.allocs {
		held = append(held, &si.Allocation{AllocationKey: a.AllocationKey, ApplicationID: a.ApplicationID, PartitionName: "default",
			NodeID: a.NodeID, ResourcePerAlloc: a.ResourcePerAlloc})
	}
	rec.accNodes, rec.accApps = map[string]bool{}, map[string]bool{}
	rec.mu.Unlock()
	must(t, c.Register(ctx, reg, rec))
	must(t, c.UpdateNode(nodes("rm", "n1", "n2")))
	rec.await(t, "nodes again", func() bool { return len(rec.accNodes) == 2 })
	must(t, c.UpdateApplication(app("rm", "app1", "root.b")))
	rec.await(t, "app again", func() bool { return rec.accApps["app1"] })
	must(t, c.UpdateAllocation(&si.AllocationRequest{RmID: "rm", Allocations: held}))
	must(t, c.UpdateAllocation(asks("rm", "app1", keys("second", 4)...)))
	rec.await(t, "8 allocations", func() bool { return len(rec.allocs) == 8 })

	// the scheduler's state matches the RM's: 8 cores on 8 of 8 cores,
	// nothing pending, no node over capacity
	var m map[string]float64
	deadline := time.Now().Add(10 * time.Second)
	for {
		m = metricsOf(t, get(t, s, "/ws/v1/metrics", "", 200))
		if m[`yunikorn_queue_resource{partition="default",queue="root.b",resource="vcore",state="allocated"}`] == 8000 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if v := m[`yunikorn_queue_resource{partition="default",queue="root.b",resource="vcore",state="allocated"}`]; v != 8000 {
		t.Fatalf("allocated vcore after resync = %v", v)
	}
	if v := m[`yunikorn_scheduler_vcore_node_usage_total{range="(90%,100%]"}`]; v != 2 {
		t.Fatalf("nodes full after resync = %v, want 2", v)
	}
	if _, ok := m[`yunikorn_queue_resource{partition="default",queue="root.b",resource="vcore",state="pending"}`]; ok {
		t.Fatalf("pending left after resync: %v", m[`yunikorn_queue_resource{partition="default",queue="root.b",resource="vcore",state="pending"}`])
	}
	if v := m[`yunikorn_scheduler_container_allocation_attempt_total{state="allocated"}`]; v != 8 {
		t.Fatalf("allocations made = %v, want 4 before and 4 after the cut", v)
	}
	var health struct {
		Healthy      bool
		HealthChecks []struct {
			Name      string
			Succeeded bool
		}
	}
	if err := json.Unmarshal(get(t, s, "/ws/v1/scheduler/healthcheck", "", 200), &health); err != nil || len(health.HealthChecks) == 0 {
		t.Fatalf("health over REST: %+v %v", health, err)
	}
	var a struct {
		Allocations []struct {
			Key string `json:"allocationKey"`
		} `json:"allocations"`
	}
	if err := json.Unmarshal(get(t, s, "/ws/v1/partition/default/application/app1", "", 200), &a); err != nil || len(a.Allocations) != 8 {
		t.Fatalf("app1 after resync over REST: %+v %v", a, err)
	}
	seen := map[string]bool{}
	for _, x := range a.Allocations {
		if seen[x.Key] {
			t.Fatalf("allocation %s twice after resync", x.Key)
		}
		seen[x.Key] = true
	}
	must(t, s.Service().Inspect(func(e *engine.Engine) {
		if err := e.Verify(); err != nil {
			t.Errorf("engine invariants after resync: %v", err)
		}
	}))
}
