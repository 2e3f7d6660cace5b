package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fakeCore serves the REST reads of the stall guard: one application per
// queue, with the asks given for it, and an allocation count that grows
// by step at each read.
func fakeCore(t *testing.T, asks map[string][]map[string]any, step int) *httptest.Server {
	t.Helper()
	count := 100
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == "/ws/v1/metrics":
			count += step
			fmt.Fprintf(w, "# TYPE x counter\n%s %d\n", allocatedSeries, count)
		case strings.HasSuffix(p, "/applications"):
			q := strings.TrimSuffix(strings.TrimPrefix(p, "/ws/v1/partition/default/queue/root."), "/applications")
			if _, ok := asks["app-"+q]; !ok && len(asks) > 0 {
				http.NotFound(w, r) // the queue does not exist yet
				return
			}
			_ = json.NewEncoder(w).Encode([]map[string]string{{"applicationID": "app-" + q}})
		case strings.HasSuffix(p, "/why"):
			id := strings.TrimSuffix(strings.TrimPrefix(p, "/ws/v1/partition/default/application/"), "/why")
			_ = json.NewEncoder(w).Encode(map[string]any{"asks": asks[id]})
		case p == "/debug/stack":
			_, _ = w.Write([]byte("goroutine 1 [running]:\n"))
		default:
			http.NotFound(w, r)
		}
	}))
}

func TestStallGuard(t *testing.T) {
	old := time.Now().Add(-time.Minute).UnixNano()
	fresh := time.Now().UnixNano()
	w := wave{id: "pd", pods: 10, namespaces: 2}
	GuardLook = time.Millisecond
	cases := []struct {
		name  string
		asks  map[string][]map[string]any
		step  int // allocations between two reads of the count
		stall bool
	}{
		{"nothing pending", nil, 0, false},
		{"an old ask that fits no node", map[string][]map[string]any{
			"app-pd-00": {{"allocationKey": "a", "requestTime": old, "reason": "NoNodeFits", "fitNodes": 0}},
		}, 0, false},
		{"an old ask that fits but waits for its queue", map[string][]map[string]any{
			"app-pd-01": {{"allocationKey": "a", "requestTime": old, "reason": "QueueMax", "fitNodes": 5}},
		}, 0, false},
		{"a namespace whose queue does not exist yet", map[string][]map[string]any{
			"app-pd-00": {{"allocationKey": "a", "requestTime": old, "reason": "NoNodeFits", "fitNodes": 1000}},
		}, 0, true},
		{"a fresh ask that fits", map[string][]map[string]any{
			"app-pd-01": {{"allocationKey": "a", "requestTime": fresh, "reason": "NotTried", "fitNodes": 5}},
		}, 0, false},
		{"an old ask that fits every node (the stall of issue 35)", map[string][]map[string]any{
			"app-pd-00": {{"allocationKey": "a", "requestTime": old, "reason": "NoNodeFits", "fitNodes": 1000}},
		}, 0, true},
		{"an old ask not yet reached while Paddock allocates (a backlog, binds lagging)", map[string][]map[string]any{
			"app-pd-00": {{"allocationKey": "a", "requestTime": old, "reason": "NotTried", "fitNodes": 1000}},
		}, 40, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeCore(t, tc.asks, tc.step)
			defer srv.Close()
			c := &cluster{work: t.TempDir(), restAddr: strings.TrimPrefix(srv.URL, "http://")}
			err := c.stallGuard(w)(context.Background())
			if got := err != nil; got != tc.stall {
				t.Fatalf("stall %v, want %v (error %v)", got, tc.stall, err)
			}
			if tc.stall && !strings.Contains(err.Error(), "a of app-pd-00") {
				t.Errorf("the error does not name the ask: %v", err)
			}
		})
	}
	// a core that does not answer is no stall (it may be restarting)
	c := &cluster{work: t.TempDir(), restAddr: "127.0.0.1:1"}
	if err := c.stallGuard(w)(context.Background()); err != nil {
		t.Errorf("an unreachable core failed the wave: %v", err)
	}
}
