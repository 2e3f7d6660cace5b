package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/grpcclient"
	"github.com/paddock-sched/paddock/internal/logging"
	"github.com/paddock-sched/paddock/si"
	"github.com/paddock-sched/paddock/si/api"
)

const testConfig = `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
          - name: b
`

// recorder is a remote RM's callback; responses arrive on three
// goroutines.
type recorder struct {
	mu       sync.Mutex
	allocs   map[string]*si.Allocation
	accApps  map[string]bool
	accNodes map[string]bool
	changed  chan struct{}
}

func newRecorder() *recorder {
	return &recorder{allocs: map[string]*si.Allocation{}, accApps: map[string]bool{}, accNodes: map[string]bool{}, changed: make(chan struct{}, 1)}
}

var _ api.ResourceManagerCallback = (*recorder)(nil)

func (r *recorder) poke() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) UpdateAllocation(resp *si.AllocationResponse) error {
	r.mu.Lock()
	for _, a := range resp.New {
		r.allocs[a.AllocationKey] = a
	}
	r.mu.Unlock()
	r.poke()
	return nil
}

func (r *recorder) UpdateApplication(resp *si.ApplicationResponse) error {
	r.mu.Lock()
	for _, a := range resp.Accepted {
		r.accApps[a.ApplicationID] = true
	}
	r.mu.Unlock()
	r.poke()
	return nil
}

func (r *recorder) UpdateNode(resp *si.NodeResponse) error {
	r.mu.Lock()
	for _, n := range resp.Accepted {
		r.accNodes[n.NodeID] = true
	}
	r.mu.Unlock()
	r.poke()
	return nil
}

func (r *recorder) Predicates(*si.PredicatesArgs) error { return nil }
func (r *recorder) PreemptionPredicates(*si.PreemptionPredicatesArgs) *si.PreemptionPredicatesResponse {
	return &si.PreemptionPredicatesResponse{Success: true}
}
func (r *recorder) SendEvent([]*si.EventRecord)                                              {}
func (r *recorder) UpdateContainerSchedulingState(*si.UpdateContainerSchedulingStateRequest) {}

func (r *recorder) await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		r.mu.Lock()
		ok := cond()
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.changed:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func quiet() *logging.Set { return logging.NewText(io.Discard) }

// start runs a server on loopback ports, stopped at the end of the test.
func start(t *testing.T, o Options) *Server {
	t.Helper()
	o.RESTAddr, o.GRPCAddr = "127.0.0.1:0", "127.0.0.1:0"
	if o.Logs == nil {
		o.Logs = quiet()
	}
	s, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s
}

func dial(t *testing.T, addr, token string) *grpcclient.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := grpcclient.Dial(ctx, addr, grpcclient.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func res(vcore, mem int64) *si.Resource {
	return &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: vcore}, "memory": {Value: mem}}}
}

func nodes(rmID string, ids ...string) *si.NodeRequest {
	req := &si.NodeRequest{RmID: rmID}
	for _, id := range ids {
		req.Nodes = append(req.Nodes, &si.NodeInfo{NodeID: id, Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)})
	}
	return req
}

func app(rmID, id, queue string) *si.ApplicationRequest {
	return &si.ApplicationRequest{RmID: rmID, New: []*si.AddApplicationRequest{{
		ApplicationID: id, QueueName: queue, PartitionName: "default", Ugi: &si.UserGroupInformation{User: "alice"}}}}
}

func asks(rmID, appID string, keys ...string) *si.AllocationRequest {
	req := &si.AllocationRequest{RmID: rmID}
	for _, k := range keys {
		req.Allocations = append(req.Allocations, &si.Allocation{AllocationKey: k, ApplicationID: appID, PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)})
	}
	return req
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// get fetches a REST path with the token, expecting status want.
func get(t *testing.T, s *Server, path, token string, want int) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+s.RESTAddr()+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d, want %d: %s", path, resp.StatusCode, want, body)
	}
	return body
}

// metricsOf parses the exposition into series -> value.
func metricsOf(t *testing.T, body []byte) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("exposition line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// eventBatch is the batch API body.
type eventBatch struct {
	InstanceUUID        string
	LowestID, HighestID uint64
	EventRecords        []struct {
		Type              int    `json:"type"`
		ObjectID          string `json:"objectID"`
		ReferenceID       string `json:"referenceID"`
		EventChangeType   int    `json:"eventChangeType"`
		EventChangeDetail int    `json:"eventChangeDetail"`
	}
}

func batch(t *testing.T, s *Server, token string) eventBatch {
	t.Helper()
	var b eventBatch
	if err := json.Unmarshal(get(t, s, "/ws/v1/events/batch", token, 200), &b); err != nil {
		t.Fatal(err)
	}
	return b
}

// proxy forwards TCP connections to target until cut.
type proxy struct {
	lis    net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{lis: lis, target: target}
	t.Cleanup(func() { lis.Close(); p.cut() })
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(u, c); u.Close() }()
			go func() { _, _ = io.Copy(c, u); c.Close() }()
		}
	}()
	return p
}

func (p *proxy) addr() string { return p.lis.Addr().String() }

// cut drops every connection, as a network failure would.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func keys(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return out
}
