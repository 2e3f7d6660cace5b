package rest

import (
	"encoding/json"
	"github.com/paddock-sched/paddock/callback"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// TestEmptyClusterShapes: with no nodes and no applications the fields the
// web UI needs are still there, and lists are [] rather than null.
func TestEmptyClusterShapes(t *testing.T) {
	s := rmproxy.NewManual(clock.NewVirtual(start))
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm-1", Config: testConfig}, callback.Nop{}); err != nil {
		t.Fatal(err)
	}
	h := New(s, Options{})
	want := map[string][]string{
		"/ws/v1/partitions":                                  {`"totalNodes":0`, `"applications":{"total":0}`, `"totalContainers":0`},
		"/ws/v1/scheduler/node-utilizations":                 {`"utilizations":[]`},
		"/ws/v1/partition/default/nodes":                     {`[]`},
		"/ws/v1/partition/default/applications/active":       {`[]`},
		"/ws/v1/partition/default/applications/completed":    {`[]`},
		"/ws/v1/partition/default/queue/root.a/applications": {`[]`},
		"/ws/v1/partition/default/usage/users":               {`[]`},
		"/ws/v1/partition/default/usage/groups":              {`[]`},
		"/ws/v1/history/apps":                                {`[]`},
		"/ws/v1/history/containers":                          {`[]`},
		"/ws/v1/partition/default/queues":                    {`"queuename":"root"`, `"isLeaf":false`, `"isLeaf":true`, `"children":[]`},
		"/ws/v1/scheduler/healthcheck":                       {`"Healthy":true`},
		"/ws/v1/clusters":                                    {`"rmBuildInformation":[{"rmId":"rm-1"}]`},
	}
	for path, parts := range want {
		w := do(t, h, request{path: path})
		body := w.Body.String()
		if w.Code != 200 {
			t.Errorf("%s: %d %s", path, w.Code, body)
			continue
		}
		if strings.Contains(body, "null") {
			t.Errorf("%s: null in %s", path, body)
		}
		for _, p := range parts {
			if !strings.Contains(body, p) {
				t.Errorf("%s: %q missing from %s", path, p, body)
			}
		}
	}
}

// TestUnits: timestamps are nanoseconds except the application's
// startTime, which is milliseconds.
func TestUnits(t *testing.T) {
	s, clk := scripted(t)
	h := New(s, Options{})
	var a AppInfo
	if err := json.Unmarshal(do(t, h, request{path: "/ws/v1/partition/default/application/app-1"}).Body.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	if a.SubmissionTime != start.UnixNano() || a.StartTime != start.UnixMilli() {
		t.Errorf("submissionTime %d (want ns %d), startTime %d (want ms %d)", a.SubmissionTime, start.UnixNano(), a.StartTime, start.UnixMilli())
	}
	if a.UsedResource["vcore"] != 3000 || a.UsedResource["memory"] != 2<<30 {
		t.Errorf("usedResource %v: want millicores and bytes", a.UsedResource)
	}
	var done AppInfo
	if err := json.Unmarshal(do(t, h, request{path: "/ws/v1/partition/default/application/app-done"}).Body.Bytes(), &done); err != nil {
		t.Fatal(err)
	}
	// released at start+1s, Completed 30 s later, at the next cycle (start+32s)
	if done.State != "Completed" || done.FinishedTime == nil || *done.FinishedTime != start.Add(32*time.Second).UnixNano() {
		t.Errorf("completed app: state %s finishedTime %v", done.State, done.FinishedTime)
	}
	var snapTime struct {
		SnapshotTime int64 `json:"snapshotTime"`
	}
	_ = json.Unmarshal(do(t, h, request{path: "/ws/v1/partition/default/application/app-1/why"}).Body.Bytes(), &snapTime)
	if snapTime.SnapshotTime != clk.Now().UnixNano() {
		t.Errorf("why snapshotTime %d, want %d", snapTime.SnapshotTime, clk.Now().UnixNano())
	}
}
