package events

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A scheduling pass at scale emits its events in one burst, far more than
// a stream could write while they are appended. A reader that keeps up
// gets every record and is not cut.
func TestBurstDoesNotCutAReaderThatKeepsUp(t *testing.T) {
	s, srv := newServer(t, Options{})
	_, br := openStream(t, srv.URL+"/ws/v1/events/stream")
	readLine(t, br) // InstanceUUID
	const burst = 20000
	for i := range burst {
		s.Append(rec(i))
	}
	for i := range burst {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("record %d of %d: %v (slow disconnects %d)", i, burst, err, s.SlowDisconnects())
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprint("app-", i); m["objectID"] != want {
			t.Fatalf("record %d is %v, want objectID %s", i, m, want)
		}
	}
	if n := s.SlowDisconnects(); n != 0 {
		t.Errorf("%d slow disconnects", n)
	}
}

// The slow-consumer warning is logged at most once per slowWarnEvery; the
// disconnections in between are counted in the next warning.
func TestSlowWarningIsRateLimited(t *testing.T) {
	var logs bytes.Buffer
	s := New(Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	defer s.Close()
	for range 50 {
		s.warnSlow("10.0.0.1")
	}
	if n := strings.Count(logs.String(), "consumer too slow"); n != 1 {
		t.Fatalf("%d warnings for 50 disconnections within %v, want 1:\n%s", n, slowWarnEvery, logs.String())
	}
	s.lastWarn = s.lastWarn.Add(-slowWarnEvery) // the interval passed
	s.warnSlow("10.0.0.1")
	if !strings.Contains(logs.String(), "alsoSinceLastWarning=49") {
		t.Errorf("the next warning does not count the 49 in between:\n%s", logs.String())
	}
}

// BenchmarkStream measures the records a local stream delivers per second
// (records/s): bursts of 5,000 appended at once, read as they arrive.
func BenchmarkStream(b *testing.B) {
	s := New(Options{})
	defer s.Close()
	mux := http.NewServeMux()
	mux.Handle("/ws/v1/events/stream", s.StreamHandler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/ws/v1/events/stream")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReaderSize(resp.Body, 1<<16)
	if _, err := br.ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	const burst = 5000
	start := time.Now()
	for b.Loop() {
		for i := range burst {
			s.Append(rec(i))
		}
		for range burst {
			if _, err := br.ReadSlice('\n'); err != nil {
				b.Fatalf("%v (slow disconnects %d)", err, s.SlowDisconnects())
			}
		}
	}
	b.ReportMetric(float64(b.N*burst)/time.Since(start).Seconds(), "records/s")
}
