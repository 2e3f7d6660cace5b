package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/serve"
	"github.com/paddock-sched/paddock/internal/sim/borg/gen"
)

// lockedBuffer is a bytes.Buffer written by the command and read by the
// test at the same time.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func getBody(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v %s", url, resp.StatusCode, err, b)
	}
	return b
}

// metricValue is the value of one sample line of a Prometheus text page.
func metricValue(t *testing.T, page []byte, series string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("metrics lack %s", series)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestReplayServe watches a replay live as a newcomer would: the REST API
// shows the cell's nodes and applications and their allocations change
// while it runs, Prometheus counts the scheduling, and after the end it
// keeps serving until SIGINT, then exits 0.
func TestReplayServe(t *testing.T) {
	if testing.Short() {
		t.Skip("a replay paced in real time (8 s of it watched over REST): the full tier (scripts/test.sh) runs it")
	}
	dir := t.TempDir()
	if _, err := gen.Generate(dir, gen.Options{Seed: 9, Machines: 80, Duration: 20 * time.Minute, JobsPerHour: 600}); err != nil {
		t.Fatal(err)
	}
	started := make(chan *serve.Server, 1)
	serveStarted = func(s *serve.Server) { started <- s }
	defer func() { serveStarted = nil }()
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		// 20 minutes of trace time at 150x: 8 s to watch, time for a
		// dozen polls even on a loaded machine
		done <- run([]string{"replay", "-trace", dir, "-end", "0", "-interval", "5s", "-serve", "127.0.0.1:0", "-speed", "150", "-html", "", "-quiet"}, &out, &errb)
	}()
	var s *serve.Server
	select {
	case s = <-started:
	case code := <-done:
		t.Fatalf("exit %d before serving: %s", code, errb.String())
	case <-time.After(30 * time.Second):
		t.Fatal("replay did not start serving")
	}
	base := "http://" + s.RESTAddr()
	type partition struct {
		TotalNodes, TotalContainers int
		Applications                map[string]int
	}
	containers := map[int]bool{}
	var maxNodes, maxApps, nodeList int
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(out.String(), "replay done") {
		if time.Now().After(deadline) {
			t.Fatalf("replay did not finish:\n%s\n%s", out.String(), errb.String())
		}
		var ps []partition
		if err := json.Unmarshal(getBody(t, base+"/ws/v1/partitions"), &ps); err != nil || len(ps) > 1 {
			t.Fatalf("partitions: %v %d", err, len(ps))
		}
		if len(ps) == 0 { // the replay's RM is not registered yet
			time.Sleep(20 * time.Millisecond)
			continue
		}
		containers[ps[0].TotalContainers] = true
		maxNodes = max(maxNodes, ps[0].TotalNodes)
		maxApps = max(maxApps, ps[0].Applications["total"])
		var nodes []json.RawMessage
		if err := json.Unmarshal(getBody(t, base+"/ws/v1/partition/default/nodes"), &nodes); err != nil {
			t.Fatal(err)
		}
		nodeList = max(nodeList, len(nodes))
		time.Sleep(50 * time.Millisecond)
	}
	if maxNodes == 0 || nodeList == 0 || maxApps == 0 {
		t.Fatalf("the cell never showed: %d nodes (%d listed), %d applications", maxNodes, nodeList, maxApps)
	}
	if len(containers) < 3 {
		t.Fatalf("allocations seen while it ran: %v; want them to change over time", containers)
	}
	// after the end: still serving the final state, with the metrics
	page := getBody(t, base+"/ws/v1/metrics")
	if v := metricValue(t, page, `yunikorn_scheduler_container_allocation_attempt_total{state="allocated"}`); v <= 0 {
		t.Fatalf("allocated attempts %g", v)
	}
	if v := metricValue(t, page, `yunikorn_scheduler_scheduling_latency_milliseconds_count`); v <= 0 {
		t.Fatalf("scheduling latency observations %g", v)
	}
	if v := metricValue(t, page, `yunikorn_scheduler_node{state="active"}`); v <= 0 {
		t.Fatalf("active nodes %g", v)
	}
	for _, want := range []string{"serving        http://" + s.RESTAddr(), "fidelity score", "decision log sha256"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
	select {
	case code := <-done:
		t.Fatalf("stopped serving by itself after the replay (exit %d)", code)
	case <-time.After(200 * time.Millisecond):
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("exit %d after SIGINT: %s", code, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit after SIGINT")
	}
	if _, err := http.Get(base + "/ws/v1/partitions"); err == nil {
		t.Fatal("REST still answers after the exit")
	}
}

func TestReplayServeFlags(t *testing.T) {
	for _, args := range [][]string{
		{"replay", "-ui", "somewhere"},
		{"replay", "-speed", "-1"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, errb.String())
		} else if errb.Len() == 0 {
			t.Errorf("%v: no reason given", args)
		}
	}
	var out, errb bytes.Buffer
	code := run([]string{"replay", "-trace", "../../traces/google-2011-excerpt", "-end", "601", "-serve", "256.0.0.1:1", "-html", "", "-quiet"}, &out, &errb)
	if code == exitOK || !strings.Contains(errb.String(), "live") {
		t.Fatalf("unusable -serve address: exit %d, %s", code, errb.String())
	}
}
