package rest

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// TestBarePartitionNameStaysWithFirstRM is issue #18 item 5: an RM whose
// ID sorts first, registered later, must not take the bare partition name
// from the RM that registered first; every RM's partitions stay reachable
// as [rmID]name or with ?rmID=.
func TestBarePartitionNameStaysWithFirstRM(t *testing.T) {
	s := rmproxy.NewManual(clock.NewVirtual(start))
	defer s.Stop()
	for _, id := range []string{"zeta", "alpha"} {
		if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: id, PolicyGroup: "queues"}, callback.Nop{}); err != nil {
			t.Fatal(err)
		}
		s.UpdateNode(&si.NodeRequest{RmID: id, Nodes: []*si.NodeInfo{{NodeID: id + "-node", Action: si.NodeInfo_CREATE, SchedulableResource: res(1000, 1<<30)}}})
		s.Cycle()
	}
	// the first RM registers again (a shim restart): it keeps the name
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "zeta", PolicyGroup: "queues"}, callback.Nop{}); err != nil {
		t.Fatal(err)
	}
	s.UpdateNode(&si.NodeRequest{RmID: "zeta", Nodes: []*si.NodeInfo{{NodeID: "zeta-node", Action: si.NodeInfo_CREATE, SchedulableResource: res(1000, 1<<30)}}})
	s.Cycle()
	h := New(s, Options{})
	nodesOf := func(path string) []string {
		t.Helper()
		w := do(t, h, request{path: path})
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
		}
		var nodes []struct{ NodeID string }
		if err := json.Unmarshal(w.Body.Bytes(), &nodes); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, n := range nodes {
			ids = append(ids, n.NodeID)
		}
		return ids
	}
	for path, want := range map[string]string{
		"/ws/v1/partition/default/nodes":            "zeta-node",
		"/ws/v1/partition/[alpha]default/nodes":     "alpha-node",
		"/ws/v1/partition/%5Balpha%5Ddefault/nodes": "alpha-node",
		"/ws/v1/partition/[zeta]default/nodes":      "zeta-node",
		"/ws/v1/partition/default/nodes?rmID=alpha": "alpha-node",
		"/ws/v1/partition/DEFAULT/nodes?rmID=zeta":  "zeta-node",
	} {
		if got := nodesOf(path); len(got) != 1 || got[0] != want {
			t.Errorf("GET %s: nodes %v, want [%s]", path, got, want)
		}
	}
	for _, path := range []string{"/ws/v1/partition/[nobody]default/nodes", "/ws/v1/partition/default/nodes?rmID=nobody"} {
		if w := do(t, h, request{path: path}); w.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, w.Code)
		}
	}
	// the configuration and the cluster list follow the same order
	w := do(t, h, request{path: "/ws/v1/config", header: map[string]string{"Accept": "application/json"}})
	if w.Code != http.StatusOK {
		t.Fatalf("config: %d", w.Code)
	}
	snap, _ := s.Snapshot(t.Context())
	if snap.RMs[0].ID != "zeta" || snap.Partitions[0].RMID != "zeta" {
		t.Errorf("snapshot order: RMs[0] %s, Partitions[0] of %s; want zeta first", snap.RMs[0].ID, snap.Partitions[0].RMID)
	}
}
