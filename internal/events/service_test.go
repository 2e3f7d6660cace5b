package events

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/resource"
)

func newServer(t *testing.T, o Options) (*Service, *httptest.Server) {
	t.Helper()
	s := New(o)
	mux := http.NewServeMux()
	mux.Handle("/ws/v1/events/batch", s.BatchHandler())
	mux.Handle("/ws/v1/events/stream", s.StreamHandler())
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { s.Close(); srv.Close() })
	return s, srv
}

func getJSON(t *testing.T, url string, want int) map[string]any {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("GET %s: status %d, want %d: %s", url, resp.StatusCode, want, body)
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("GET %s: %v: %s", url, err, body)
	}
	return out
}

func TestBatchFormat(t *testing.T) {
	reg := resource.NewRegistry()
	vc, _ := reg.Intern("vcore")
	s, srv := newServer(t, Options{Registry: reg, RESTResponseSize: 3})
	var v resource.Vector
	v[vc] = 500
	s.Append(event.Record{Type: event.App, Change: event.Add, Detail: event.AppAlloc, ObjectID: "app-1", ReferenceID: "alloc-1",
		Message: strings.Repeat("x", 2000), Resource: v, Time: 42})
	for i := range 4 {
		s.Append(rec(i))
	}

	b := getJSON(t, srv.URL+"/ws/v1/events/batch", 200)
	if b["InstanceUUID"] != s.InstanceUUID() || len(s.InstanceUUID()) != 36 {
		t.Fatalf("InstanceUUID = %v", b["InstanceUUID"])
	}
	if b["LowestID"] != 0.0 || b["HighestID"] != 4.0 {
		t.Fatalf("bounds = %v %v", b["LowestID"], b["HighestID"])
	}
	recs := b["EventRecords"].([]any)
	if len(recs) != 3 {
		t.Fatalf("got %d records, want RESTResponseSize 3", len(recs))
	}
	first := recs[0].(map[string]any)
	for k, want := range map[string]any{"type": 2.0, "eventChangeType": 2.0, "eventChangeDetail": 200.0, "objectID": "app-1",
		"referenceID": "alloc-1", "timestampNano": 42.0} {
		if first[k] != want {
			t.Errorf("record field %s = %v, want %v", k, first[k], want)
		}
	}
	if m := first["message"].(string); len(m) != MaxMessage {
		t.Errorf("message length %d, want truncated to %d", len(m), MaxMessage)
	}
	if q := first["resource"].(map[string]any)["resources"].(map[string]any)["vcore"].(map[string]any)["value"]; q != 500.0 {
		t.Errorf("resource = %v", first["resource"])
	}

	b = getJSON(t, srv.URL+"/ws/v1/events/batch?start=3&count=10", 200)
	recs = b["EventRecords"].([]any)
	if len(recs) != 2 || recs[0].(map[string]any)["objectID"] != "app-2" {
		t.Fatalf("start=3: %v", recs)
	}

	for _, q := range []string{"count=0", "count=-1", "start=x", "count=1.5"} {
		e := getJSON(t, srv.URL+"/ws/v1/events/batch?"+q, 400)
		if e["status_code"] != 400.0 || e["message"] == "" {
			t.Errorf("%s: error body %v", q, e)
		}
	}
}

// openStream opens a stream and returns its line reader.
func openStream(t *testing.T, url string) (*http.Response, *bufio.Reader) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp, bufio.NewReader(resp.Body)
}

func readLine(t *testing.T, br *bufio.Reader) map[string]any {
	t.Helper()
	line, err := br.ReadBytes('\n')
	if err != nil {
		t.Fatalf("read stream: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("stream line %q: %v", line, err)
	}
	return m
}

func TestStreamPastThenLive(t *testing.T) {
	s, srv := newServer(t, Options{})
	for i := range 5 {
		s.Append(rec(i))
	}
	resp, br := openStream(t, srv.URL+"/ws/v1/events/stream?count=2")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if m := readLine(t, br); m["InstanceUUID"] != s.InstanceUUID() || len(m) != 1 {
		t.Fatalf("first line %v", m)
	}
	for _, want := range []string{"app-3", "app-4"} {
		if m := readLine(t, br); m["objectID"] != want {
			t.Fatalf("past record %v, want %s", m, want)
		}
	}
	s.Append(rec(7))
	if m := readLine(t, br); m["objectID"] != "app-7" {
		t.Fatalf("live record %v", m)
	}
	if len(s.Streams()) != 1 {
		t.Fatalf("streams = %v", s.Streams())
	}
	// Close hands over what is queued, then ends the stream
	s.Append(rec(8))
	s.Close()
	sawEnd := false
	for range 2 {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			sawEnd = true
			break
		}
		if err != nil || !strings.Contains(string(line), "app-8") {
			t.Fatalf("after close: %q %v", line, err)
		}
	}
	if !sawEnd {
		t.Fatal("stream did not end after Close")
	}
}

func TestStreamLimits(t *testing.T) {
	s, srv := newServer(t, Options{MaxStreams: 100, MaxStreamsPerHost: 2})
	for range 2 {
		resp, br := openStream(t, srv.URL+"/ws/v1/events/stream")
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		readLine(t, br)
	}
	e := getJSON(t, srv.URL+"/ws/v1/events/stream", 503)
	if e["status_code"] != 503.0 || !strings.Contains(e["message"].(string), "host") || e["description"] == nil {
		t.Fatalf("refusal body %v", e)
	}
	if s.Refused() != 1 {
		t.Fatalf("refused = %d", s.Refused())
	}
	// the limits follow the configuration
	if err := s.Apply(map[string]string{"event.maxStreamsPerHost": "3", "event.maxStreams": "3"}); err != nil {
		t.Fatal(err)
	}
	resp, br := openStream(t, srv.URL+"/ws/v1/events/stream")
	if resp.StatusCode != 200 {
		t.Fatalf("after raising the per-host limit: %d", resp.StatusCode)
	}
	readLine(t, br)
	e = getJSON(t, srv.URL+"/ws/v1/events/stream", 503)
	if !strings.Contains(e["message"].(string), "too many event streams") {
		t.Fatalf("total limit body %v", e)
	}
	if e := getJSON(t, srv.URL+"/ws/v1/events/stream?count=x", 400); e["status_code"] != 400.0 {
		t.Fatalf("bad count: %v", e)
	}
}

func TestSlowStreamIsDisconnected(t *testing.T) {
	s, srv := newServer(t, Options{StreamBuffer: 8, WriteTimeout: 200 * time.Millisecond, RingCapacity: 1000})
	resp, br := openStream(t, srv.URL+"/ws/v1/events/stream")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	readLine(t, br)
	// the client stops reading; big records fill the socket, then the
	// stream's queue. Appending must not wait for it.
	big := rec(0)
	big.Message = strings.Repeat("m", MaxMessage)
	start := time.Now()
	for i := 0; i < 200000 && s.SlowDisconnects() == 0; i++ {
		s.Append(big)
		if i%1000 == 999 {
			time.Sleep(time.Millisecond) // let the handler notice
		}
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("appending took %v", d)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.SlowDisconnects() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if s.SlowDisconnects() != 1 {
		t.Fatalf("slow disconnects = %d", s.SlowDisconnects())
	}
	if n := len(s.Streams()); n != 0 {
		t.Fatalf("%d streams still open", n)
	}
	// the connection ends: reading the rest reaches EOF or an error
	if _, err := io.Copy(io.Discard, br); err != nil && !strings.Contains(err.Error(), "EOF") && !strings.Contains(err.Error(), "reset") {
		t.Logf("read after disconnect: %v", err)
	}
}

func TestApplyRejectsBadValues(t *testing.T) {
	s := New(Options{RingCapacity: 10})
	err := s.Apply(map[string]string{"event.ringBufferCapacity": "-5", "event.RESTResponseSize": "abc", "event.maxStreams": "7"})
	if err == nil || !strings.Contains(err.Error(), "ringBufferCapacity") || !strings.Contains(err.Error(), "RESTResponseSize") {
		t.Fatalf("error = %v", err)
	}
	if s.Ring().Capacity() != 10 {
		t.Fatalf("bad capacity applied: %d", s.Ring().Capacity())
	}
	if m, _, r := s.limits(); m != 7 || r != DefaultRESTResponseSize {
		t.Fatalf("limits %d %d", m, r)
	}
	if err := s.Apply(map[string]string{"event.ringBufferCapacity": "4"}); err != nil || s.Ring().Capacity() != 4 {
		t.Fatalf("resize: %v cap %d", err, s.Ring().Capacity())
	}
}
