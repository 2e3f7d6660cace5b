package rest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

type request struct {
	method, path, body string
	header             map[string]string
}

func do(t *testing.T, h http.Handler, rq request) *httptest.ResponseRecorder {
	t.Helper()
	if rq.method == "" {
		rq.method = http.MethodGet
	}
	r := httptest.NewRequest(rq.method, rq.path, strings.NewReader(rq.body))
	for k, v := range rq.header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// golden compares a body with testdata/<name>: JSON is compared after
// indenting, so the files are readable and key order is the encoder's.
func golden(t *testing.T, name string, body []byte) {
	t.Helper()
	got := body
	if json.Valid(body) {
		var buf bytes.Buffer
		if err := json.Indent(&buf, body, "", "  "); err != nil {
			t.Fatal(err)
		}
		got = buf.Bytes()
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", name, diff)
	}
}

func newHandler(t *testing.T, o Options) http.Handler {
	t.Helper()
	s, _ := scripted(t)
	o.History = testHistory(t, s)
	return New(s, o)
}

// TestGolden serves every snapshot endpoint of the scripted cluster and
// compares the bodies with the golden files.
func TestGolden(t *testing.T) {
	// two open event streams, given out of order and in another zone: the
	// state dump lists them by creation time, in UTC
	streams := func() []EventStreamInfo {
		return []EventStreamInfo{
			{Name: "10.0.0.9", CreatedAt: start.Add(20 * time.Second).In(time.FixedZone("CET", 3600))},
			{Name: "10.0.0.7", CreatedAt: start.Add(10 * time.Second)},
		}
	}
	h := newHandler(t, Options{LogLevel: "info", EventStreams: streams})
	cases := []struct {
		name string
		rq   request
	}{
		{"clusters.json", request{path: "/ws/v1/clusters"}},
		{"partitions.json", request{path: "/ws/v1/partitions"}},
		{"placementrules.json", request{path: "/ws/v1/partition/default/placementrules"}},
		{"queues.json", request{path: "/ws/v1/partition/default/queues"}},
		{"queue.json", request{path: "/ws/v1/partition/default/queue/root.a"}},
		{"queue-subtree.json", request{path: "/ws/v1/partition/default/queue/root.tenants?subtree"}},
		{"queue-applications.json", request{path: "/ws/v1/partition/default/queue/root.b/applications"}},
		{"queue-applications-active-running.json", request{path: "/ws/v1/partition/default/queue/root.b/applications/active?status=running"}},
		{"queue-application.json", request{path: "/ws/v1/partition/default/queue/root.a/application/app-1"}},
		{"application.json", request{path: "/ws/v1/partition/default/application/app-1"}},
		{"applications-active.json", request{path: "/ws/v1/partition/default/applications/active"}},
		{"applications-active-accepted.json", request{path: "/ws/v1/partition/default/applications/active?status=accepted"}},
		{"applications-completed.json", request{path: "/ws/v1/partition/default/applications/completed"}},
		{"applications-rejected.json", request{path: "/ws/v1/partition/default/applications/rejected"}},
		{"why.json", request{path: "/ws/v1/partition/default/application/app-1/why"}},
		{"why-reserved.json", request{path: "/ws/v1/partition/default/application/app-2/why/b-huge"}},
		{"why-userlimit.json", request{path: "/ws/v1/partition/default/application/app-3/why"}},
		{"nodes.json", request{path: "/ws/v1/partition/default/nodes"}},
		{"node.json", request{path: "/ws/v1/partition/default/node/n2"}},
		{"users.json", request{path: "/ws/v1/partition/default/usage/users"}},
		{"user.json", request{path: "/ws/v1/partition/default/usage/user/bob"}},
		{"groups.json", request{path: "/ws/v1/partition/default/usage/groups"}},
		{"group.json", request{path: "/ws/v1/partition/default/usage/group/dev"}},
		{"node-utilizations.json", request{path: "/ws/v1/scheduler/node-utilizations"}},
		{"healthcheck.json", request{path: "/ws/v1/scheduler/healthcheck"}},
		{"history-apps.json", request{path: "/ws/v1/history/apps"}},
		{"history-containers.json", request{path: "/ws/v1/history/containers"}},
		{"config.yaml", request{path: "/ws/v1/config"}},
		{"config.json", request{path: "/ws/v1/config", header: map[string]string{"Accept": "application/json"}}},
		{"validate-ok.json", request{method: "POST", path: "/ws/v1/validate-conf", body: testConfig}},
		{"validate-bad.json", request{method: "POST", path: "/ws/v1/validate-conf", body: "partitions:\n  - name: default\n    queues:\n      - name: root\n        maxapplications: -1\n"}},
		{"fullstatedump.json", request{path: "/debug/fullstatedump"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := do(t, h, tc.rq)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			ct := w.Header().Get("Content-Type")
			if strings.HasSuffix(tc.name, ".json") && ct != "application/json; charset=UTF-8" {
				t.Errorf("content type %q", ct)
			}
			if w.Header().Get("Access-Control-Allow-Origin") != "*" {
				t.Error("no CORS header")
			}
			golden(t, tc.name, w.Body.Bytes())
		})
	}
}

// TestErrors: unknown objects are 404 and bad parameters 400, each with
// the reference's error body.
func TestErrors(t *testing.T) {
	h := newHandler(t, Options{})
	cases := []struct {
		path   string
		status int
		desc   string
	}{
		{"/ws/v1/partition/nope/queues", 404, "partition nope not found"},
		{"/ws/v1/partition/nope/nodes", 404, "partition nope not found"},
		{"/ws/v1/partition/default/queue/root.zz", 404, "queue root.zz not found in partition default"},
		{"/ws/v1/partition/default/queue/root.zz/applications", 404, "queue root.zz not found"},
		{"/ws/v1/partition/default/queue/root..a", 400, "is not a valid queue name"},
		{"/ws/v1/partition/default/queue/root.a%20b", 400, "is not a valid queue name"},
		{"/ws/v1/partition/default/application/ghost", 404, "application ghost not found in partition default"},
		{"/ws/v1/partition/default/queue/root.b/application/app-1", 404, "application app-1 not found in queue root.b"},
		{"/ws/v1/partition/default/application/app-1/why/nope", 404, "has no pending ask nope"},
		{"/ws/v1/partition/default/node/ghost", 404, "node ghost not found in partition default"},
		{"/ws/v1/partition/default/usage/user/zed", 404, "user zed has no usage"},
		{"/ws/v1/partition/default/usage/user/1bad", 400, "is not valid"},
		{"/ws/v1/partition/default/usage/group/nogroup", 404, "group nogroup has no usage"},
		{"/ws/v1/partition/default/usage/group/bad!", 400, "is not valid"},
		{"/ws/v1/partition/default/applications/sleeping", 400, "is not one of active, rejected, completed"},
		{"/ws/v1/partition/default/applications/active?status=done", 400, "is not one of new, accepted"},
		{"/ws/v1/partition/default/queue/root.b/applications/completed", 400, "only active"},
		{"/ws/v1/partition/default/queue/root.b/applications/active?status=x", 400, "is not one of"},
		{"/ws/v1/config?rmID=other", 404, "resource manager other is not registered"},
		{"/ws/v1/nothing", 404, "no endpoint GET /ws/v1/nothing"},
	}
	for _, tc := range cases {
		w := do(t, h, request{path: tc.path})
		var e ErrorInfo
		if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
			t.Errorf("%s: body %q: %v", tc.path, w.Body, err)
			continue
		}
		if w.Code != tc.status || e.StatusCode != tc.status || e.Message == "" || !strings.Contains(e.Description, tc.desc) {
			t.Errorf("%s: status %d body %+v, want %d with %q", tc.path, w.Code, e, tc.status, tc.desc)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json; charset=UTF-8" {
			t.Errorf("%s: content type %q", tc.path, ct)
		}
		// the raw keys are snake_case
		if !bytes.Contains(w.Body.Bytes(), []byte(`"status_code":`)) {
			t.Errorf("%s: body %s", tc.path, w.Body)
		}
	}
}

func TestEscapedQueueName(t *testing.T) {
	h := newHandler(t, Options{})
	w := do(t, h, request{path: "/ws/v1/partition/DEFAULT/queue/root.tenants.team1"})
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"queuename":"root.tenants.team1"`) {
		t.Fatalf("dynamic queue: %d %s", w.Code, w.Body)
	}
	// an escaped dot is the same path
	w = do(t, h, request{path: "/ws/v1/partition/default/queue/root%2Etenants%2Eteam1"})
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"queuename":"root.tenants.team1"`) {
		t.Fatalf("escaped: %d %s", w.Code, w.Body)
	}
}

func TestGzip(t *testing.T) {
	h := newHandler(t, Options{})
	plain := do(t, h, request{path: "/ws/v1/partition/default/nodes"})
	if plain.Header().Get("Content-Encoding") != "" {
		t.Fatal("compressed without Accept-Encoding")
	}
	w := do(t, h, request{path: "/ws/v1/partition/default/nodes", header: map[string]string{"Accept-Encoding": "gzip, deflate"}})
	if w.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("large body not compressed (%d bytes)", plain.Body.Len())
	}
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(body, plain.Body.Bytes()) {
		t.Fatalf("gzip body differs: %v", err)
	}
	small := do(t, h, request{path: "/ws/v1/partition/nope/nodes", header: map[string]string{"Accept-Encoding": "gzip"}})
	if small.Header().Get("Content-Encoding") != "" {
		t.Error("small body compressed")
	}
}

func TestToken(t *testing.T) {
	h := newHandler(t, Options{Token: "s3cret"})
	for _, rq := range []request{
		{path: "/ws/v1/config"}, {path: "/debug/fullstatedump"}, {path: "/debug/stack"}, {path: "/debug/pprof/"},
		{method: "POST", path: "/ws/v1/validate-conf", body: testConfig},
	} {
		w := do(t, h, rq)
		if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), `"status_code":401`) {
			t.Errorf("%s without token: %d %s", rq.path, w.Code, w.Body)
		}
		rq.header = map[string]string{"Authorization": "Bearer wrong"}
		if w := do(t, h, rq); w.Code != http.StatusUnauthorized {
			t.Errorf("%s with a wrong token: %d", rq.path, w.Code)
		}
		for _, auth := range []string{"Bearer s3cret", "bearer s3cret", "BEARER  s3cret"} {
			rq.header = map[string]string{"Authorization": auth}
			if w := do(t, h, rq); w.Code != http.StatusOK {
				t.Errorf("%s with %q: %d %s", rq.path, auth, w.Code, w.Body)
			}
		}
	}
	// the rest stays open
	if w := do(t, h, request{path: "/ws/v1/partitions"}); w.Code != 200 {
		t.Errorf("partitions need no token: %d", w.Code)
	}
}

func TestDebugAndRedirects(t *testing.T) {
	h := newHandler(t, Options{})
	w := do(t, h, request{path: "/debug/stack"})
	if w.Code != 200 || !strings.Contains(w.Body.String(), "goroutine ") || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		t.Errorf("stack: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	for _, p := range []string{"/debug/pprof/", "/debug/pprof/heap?debug=1", "/debug/pprof/goroutine?debug=1", "/debug/pprof/cmdline"} {
		if w := do(t, h, request{path: p}); w.Code != 200 || w.Body.Len() == 0 {
			t.Errorf("%s: %d", p, w.Code)
		}
	}
	for from, to := range map[string]string{"/ws/v1/stack": "/debug/stack", "/ws/v1/fullstatedump": "/debug/fullstatedump"} {
		w := do(t, h, request{path: from})
		if w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != to {
			t.Errorf("%s: %d to %q", from, w.Code, w.Header().Get("Location"))
		}
	}
	pre := do(t, h, request{method: "OPTIONS", path: "/ws/v1/partitions"})
	if pre.Code != 200 || pre.Header().Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(pre.Header().Get("Access-Control-Allow-Methods"), "GET") {
		t.Errorf("preflight: %d %v", pre.Code, pre.Header())
	}
}

func TestMountsOptionalHandlers(t *testing.T) {
	mark := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, name) })
	}
	h := newHandler(t, Options{Metrics: mark("metrics"), EventsBatch: mark("batch"), EventsStream: mark("stream")})
	for path, want := range map[string]string{"/ws/v1/metrics": "metrics", "/ws/v1/events/batch?count=1": "batch", "/ws/v1/events/stream": "stream"} {
		if w := do(t, h, request{path: path}); w.Body.String() != want {
			t.Errorf("%s served %q", path, w.Body)
		}
	}
	bare := newHandler(t, Options{})
	if w := do(t, bare, request{path: "/ws/v1/metrics"}); w.Code != 404 {
		t.Errorf("metrics without a handler: %d", w.Code)
	}
}
