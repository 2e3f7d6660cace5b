package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/client"
)

// Fault tests (issue #18): what an RM meets when things go wrong around
// it, as ordinary tests that run in seconds.

// churner keeps an RM busy: asks in small batches, every allocation
// released as soon as it arrives, at most 40 asks outstanding.
type churner struct {
	released atomic.Int64
	errs     atomic.Int64
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once
}

func churn(c *client.Client, rmID, appID string, rec *recorder) *churner {
	ch := &churner{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(ch.done)
		gone := map[string]bool{}
		asked := 0
		for batch := 0; ; batch++ {
			select {
			case <-ch.stop:
				return
			default:
			}
			if asked-int(ch.released.Load()) < 40 {
				if err := c.UpdateAllocation(asks(rmID, appID, keys(fmt.Sprint("c", batch), 10)...)); err != nil {
					ch.errs.Add(1)
				}
				asked += 10
			}
			select {
			case <-rec.changed:
			case <-time.After(20 * time.Millisecond):
			case <-ch.stop:
				return
			}
			rec.mu.Lock()
			rel := &si.AllocationReleasesRequest{}
			for k, a := range rec.allocs {
				if !gone[k] {
					gone[k] = true
					rel.AllocationsToRelease = append(rel.AllocationsToRelease, &si.AllocationRelease{
						ApplicationID: a.ApplicationID, PartitionName: "default", AllocationKey: k, TerminationType: si.TerminationType_STOPPED_BY_RM})
				}
			}
			rec.mu.Unlock()
			if n := len(rel.AllocationsToRelease); n > 0 {
				if err := c.UpdateAllocation(&si.AllocationRequest{RmID: rmID, Releases: rel}); err != nil {
					ch.errs.Add(1)
				}
				ch.released.Add(int64(n))
			}
		}
	}()
	return ch
}

func (ch *churner) halt() { ch.once.Do(func() { close(ch.stop) }); <-ch.done }

// awaitReleased waits until the churner has released n allocations.
func (ch *churner) awaitReleased(t *testing.T, n int64, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for ch.released.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d allocations released, want %d", what, ch.released.Load(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// healthy fails t unless the REST health check reports every check passed.
func healthy(t *testing.T, s *Server) {
	t.Helper()
	var h struct {
		Healthy      bool
		HealthChecks []struct {
			Name             string
			Succeeded        bool
			DiagnosisMessage string
		}
	}
	if err := json.Unmarshal(get(t, s, "/ws/v1/scheduler/healthcheck", "", 200), &h); err != nil || len(h.HealthChecks) == 0 {
		t.Fatalf("health: %+v %v", h, err)
	}
	for _, c := range h.HealthChecks {
		if !c.Succeeded {
			t.Errorf("health check %s failed: %s", c.Name, c.DiagnosisMessage)
		}
	}
}

func checksum(t *testing.T, s *Server) string {
	t.Helper()
	var c struct{ Checksum string }
	body := getJSON(t, s, "/ws/v1/config?rmID=rm")
	if err := json.Unmarshal(body, &c); err != nil || c.Checksum == "" {
		t.Fatalf("config: %s %v", body, err)
	}
	return c.Checksum
}

// TestReloadUnderLoad reloads the configuration ten times while an RM
// keeps asks flowing: the valid reloads apply, the invalid ones are
// refused and change nothing, scheduling goes on, and the state stays
// consistent.
func TestReloadUnderLoad(t *testing.T) {
	s := start(t, Options{SnapshotMaxAge: -1})
	c := dial(t, s.GRPCAddr(), "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := newRecorder()
	must(t, c.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "rm", Config: testConfig}, rec))
	must(t, c.UpdateNode(nodes("rm", "n1", "n2", "n3", "n4")))
	must(t, c.UpdateApplication(app("rm", "app1", "root.a")))
	rec.await(t, "app accepted", func() bool { return rec.accApps["app1"] })
	ch := churn(c, "rm", "app1", rec)
	defer ch.halt()
	ch.awaitReleased(t, 50, "before the reloads")

	invalid := []string{
		"partitions: [{name: default, queues: [{name: root, queues: [{name: a}, {name: a}]}]}]",
		"not: yaml: [",
		strings.Replace(testConfig, "- name: a", "- name: a\n            resources: {max: {vcore: -1}}", 1),
	}
	sum := checksum(t, s)
	for i := range 10 {
		if i%2 == 0 {
			next := strings.Replace(testConfig, "- name: a", fmt.Sprintf("- name: a\n            resources: {max: {vcore: %d}}", 12000+i*1000), 1)
			must(t, c.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "rm", Config: next}))
			if now := checksum(t, s); now == sum {
				t.Fatalf("reload %d: valid configuration did not apply (checksum %s)", i, now)
			} else {
				sum = now
			}
		} else {
			err := c.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "rm", Config: invalid[i/2%len(invalid)]})
			if err == nil || !strings.Contains(err.Error(), "InvalidArgument") {
				t.Fatalf("reload %d: invalid configuration: %v, want InvalidArgument", i, err)
			}
			if now := checksum(t, s); now != sum {
				t.Fatalf("reload %d: an invalid configuration changed the checksum", i)
			}
		}
	}
	// scheduling goes on after the reloads
	ch.awaitReleased(t, ch.released.Load()+50, "after the reloads")
	ch.halt()
	t.Logf("%d allocations made and released around 5 valid and 5 invalid reloads", ch.released.Load())
	if n := ch.errs.Load(); n != 0 {
		t.Errorf("%d RM calls failed during the reloads", n)
	}
	healthy(t, s)
}

// TestTwoRMsOneID has a second RM register with the ID of a live one: the
// second wins, the first one's streams are ended with a reason, what it
// sends afterwards reaches nothing, and nothing of its state is left.
func TestTwoRMsOneID(t *testing.T) {
	s := start(t, Options{SnapshotMaxAge: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first, second := dial(t, s.GRPCAddr(), ""), dial(t, s.GRPCAddr(), "")
	r1, r2 := newRecorder(), newRecorder()
	must(t, first.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "rm", Config: testConfig}, r1))
	must(t, first.UpdateNode(nodes("rm", "a1", "a2")))
	must(t, first.UpdateApplication(app("rm", "appA", "root.a")))
	r1.await(t, "first RM's application", func() bool { return r1.accApps["appA"] })
	must(t, first.UpdateAllocation(asks("rm", "appA", keys("a", 2)...)))
	r1.await(t, "first RM's allocations", func() bool { return len(r1.allocs) == 2 })

	must(t, second.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "rm", Config: testConfig}, r2))
	select {
	case <-first.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the first RM was not told its registration was taken over")
	}
	if err := first.Err(); err == nil || !strings.Contains(err.Error(), "registered again") {
		t.Errorf("first RM's error %v, want it to say the RM registered again", err)
	}
	_ = first.UpdateNode(nodes("rm", "a3")) // too late: must not reach the scheduler
	must(t, second.UpdateNode(nodes("rm", "b1")))
	must(t, second.UpdateApplication(app("rm", "appB", "root.b")))
	r2.await(t, "second RM's application", func() bool { return r2.accApps["appB"] })
	must(t, second.UpdateAllocation(asks("rm", "appB", keys("b", 2)...)))
	r2.await(t, "second RM's allocations", func() bool { return len(r2.allocs) == 2 })

	var nodeList []struct {
		NodeID string `json:"nodeID"`
	}
	if err := json.Unmarshal(get(t, s, "/ws/v1/partition/default/nodes", "", 200), &nodeList); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range nodeList {
		ids = append(ids, n.NodeID)
	}
	sort.Strings(ids)
	if fmt.Sprint(ids) != "[b1]" {
		t.Errorf("nodes %v, want only the second RM's [b1]", ids)
	}
	get(t, s, "/ws/v1/partition/default/application/appA", "", 404)
	get(t, s, "/ws/v1/partition/default/application/appB", "", 200)
	healthy(t, s)
}

// getJSON reads path with Accept: application/json.
func getJSON(t *testing.T, s *Server, path string) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+s.RESTAddr()+path, nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d: %s", path, resp.StatusCode, body)
	}
	return body
}
