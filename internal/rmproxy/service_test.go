package rmproxy

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/core/engine"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/logging"
	"github.com/paddock-sched/paddock/internal/resource"
)

// recorder is an RM callback that records everything it is told.
type recorder struct {
	mu       sync.Mutex
	allocs   []*si.Allocation
	released []*si.AllocationRelease
	rejAlloc []*si.RejectedAllocation
	accApps  []string
	rejApps  []*si.RejectedApplication
	updated  []*si.UpdatedApplication
	accNodes []string
	rejNodes []*si.RejectedNode
	changed  chan struct{}
	veto     map[string]bool // nodes the RM's predicate rejects
	// preempt answers PreemptionPredicates when set (else success); the
	// calls are recorded in checks
	preempt func(*si.PreemptionPredicatesArgs) *si.PreemptionPredicatesResponse
	checks  []*si.PreemptionPredicatesArgs
	events  []*si.EventRecord
	hints   []string // the asks reported as waiting for cluster resources
	// order logs the callbacks as they come: "accepted APP", "state APP
	// STATE", "alloc KEY", "released KEY", "node-accepted N", "node-rejected N"
	order []string
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{}, 1)} }

func (r *recorder) poke() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) UpdateAllocation(resp *si.AllocationResponse) error {
	r.mu.Lock()
	for _, a := range resp.New {
		r.order = append(r.order, "alloc "+a.AllocationKey)
	}
	for _, a := range resp.Released {
		r.order = append(r.order, "released "+a.AllocationKey)
	}
	r.allocs = append(r.allocs, resp.New...)
	r.released = append(r.released, resp.Released...)
	r.rejAlloc = append(r.rejAlloc, resp.RejectedAllocations...)
	r.mu.Unlock()
	r.poke()
	return nil
}

func (r *recorder) UpdateApplication(resp *si.ApplicationResponse) error {
	r.mu.Lock()
	for _, a := range resp.Accepted {
		r.accApps = append(r.accApps, a.ApplicationID)
		r.order = append(r.order, "accepted "+a.ApplicationID)
	}
	for _, u := range resp.Updated {
		r.order = append(r.order, "state "+u.ApplicationID+" "+u.State)
	}
	r.rejApps = append(r.rejApps, resp.Rejected...)
	r.updated = append(r.updated, resp.Updated...)
	r.mu.Unlock()
	r.poke()
	return nil
}

func (r *recorder) UpdateNode(resp *si.NodeResponse) error {
	r.mu.Lock()
	for _, n := range resp.Accepted {
		r.accNodes = append(r.accNodes, n.NodeID)
		r.order = append(r.order, "node-accepted "+n.NodeID)
	}
	for _, n := range resp.Rejected {
		r.order = append(r.order, "node-rejected "+n.NodeID)
	}
	r.rejNodes = append(r.rejNodes, resp.Rejected...)
	r.mu.Unlock()
	r.poke()
	return nil
}

func (r *recorder) Predicates(a *si.PredicatesArgs) error {
	if r.veto != nil && r.veto[a.NodeID] {
		return fmt.Errorf("node %s vetoed", a.NodeID)
	}
	return nil
}
func (r *recorder) PreemptionPredicates(a *si.PreemptionPredicatesArgs) *si.PreemptionPredicatesResponse {
	r.checks = append(r.checks, a)
	if r.preempt != nil {
		return r.preempt(a)
	}
	return &si.PreemptionPredicatesResponse{Success: true}
}
func (r *recorder) SendEvent(ev []*si.EventRecord) {
	r.mu.Lock()
	r.events = append(r.events, ev...)
	r.mu.Unlock()
	r.poke()
}

func (r *recorder) UpdateContainerSchedulingState(req *si.UpdateContainerSchedulingStateRequest) {
	r.mu.Lock()
	r.hints = append(r.hints, req.AllocationKey)
	r.mu.Unlock()
	r.poke()
}

// await waits until cond holds on the recorder (checked under its lock).
// The deadline only bounds a hung test: under the race detector on a
// loaded 2-core machine, 60,000 deliveries have taken over 10 s.
func (r *recorder) await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		r.mu.Lock()
		ok := cond()
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

var _ api.ResourceManagerCallback = (*recorder)(nil)

const cfg = `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
          - name: b
`

func res(cpu, mem int64) *si.Resource {
	return &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: cpu}, "memory": {Value: mem}}}
}

func TestEndToEndInProcess(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	var nodes []*si.NodeInfo
	for i := range 3 {
		nodes = append(nodes, &si.NodeInfo{NodeID: fmt.Sprint("n", i), Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)})
	}
	nodes = append(nodes, &si.NodeInfo{NodeID: "bad", Action: si.NodeInfo_CREATE, Attributes: map[string]string{common.NodePartition: "nope"}})
	s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: nodes})
	rec.await(t, "nodes", func() bool { return len(rec.accNodes) == 3 && len(rec.rejNodes) == 1 })

	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}},
		{ApplicationID: "app2", QueueName: "root.nope", Ugi: &si.UserGroupInformation{User: "bob"}},
	}})
	rec.await(t, "apps", func() bool { return len(rec.accApps) == 1 && len(rec.rejApps) == 1 })

	var asks []*si.Allocation
	for i := range 12 {
		asks = append(asks, &si.Allocation{AllocationKey: fmt.Sprint("ask", i), ApplicationID: "app1", ResourcePerAlloc: res(1000, 1<<30)})
	}
	asks = append(asks, &si.Allocation{AllocationKey: "empty", ApplicationID: "app1", ResourcePerAlloc: res(0, 0)})
	asks = append(asks, &si.Allocation{AllocationKey: "orphan", ApplicationID: "ghost", ResourcePerAlloc: res(1, 1)})
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks})
	rec.await(t, "allocations", func() bool { return len(rec.allocs) == 12 && len(rec.rejAlloc) == 2 })

	perNode := map[string]int{}
	for _, a := range rec.allocs {
		perNode[a.NodeID]++
	}
	for n, c := range perNode {
		if c != 4 {
			t.Errorf("node %s got %d allocations, want 4 (fair spread, 4 cores each)", n, c)
		}
	}
	rec.await(t, "app running", func() bool {
		for _, u := range rec.updated {
			if u.ApplicationID == "app1" && u.State == "Running" {
				return true
			}
		}
		return false
	})

	// release everything: the application completes
	var rel []*si.AllocationRelease
	for _, a := range rec.allocs {
		rel = append(rel, &si.AllocationRelease{ApplicationID: "app1", AllocationKey: a.AllocationKey, TerminationType: si.TerminationType_STOPPED_BY_RM})
	}
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Releases: &si.AllocationReleasesRequest{AllocationsToRelease: rel}})
	rec.await(t, "completing", func() bool {
		for _, u := range rec.updated {
			if u.ApplicationID == "app1" && u.State == "Completing" {
				return true
			}
		}
		return false
	})
	if err := s.Inspect(func(e *engine.Engine) {
		if err := e.Verify(); err != nil {
			t.Error(err)
		}
	}); err != nil {
		t.Fatal(err)
	}
}

func TestReRegistrationWipesAndResyncs(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	rec := newRecorder()
	s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec)
	s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n0", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)}}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "u"}}}})
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{{AllocationKey: "k1", ApplicationID: "app1", ResourcePerAlloc: res(1000, 1)}}})
	rec.await(t, "first allocation", func() bool { return len(rec.allocs) == 1 })

	// the RM restarts: re-register, then resync the node, the app and the
	// allocation it knows about (with its node)
	rec2 := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec2); err != nil {
		t.Fatal(err)
	}
	s.Inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		if p.NodeCount() != 0 || p.AppCount() != 0 {
			t.Errorf("re-registration left %d nodes, %d apps", p.NodeCount(), p.AppCount())
		}
	})
	s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n0", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)}}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{{ApplicationID: "app1", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "u"}}}})
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{{AllocationKey: "k1", ApplicationID: "app1", NodeID: "n0", ResourcePerAlloc: res(1000, 1)}}})
	rec2.await(t, "recovered allocation confirmed", func() bool { return len(rec2.allocs) == 1 && rec2.allocs[0].NodeID == "n0" })
	s.Inspect(func(e *engine.Engine) {
		p, _ := e.Partition("rm1", "default")
		a, ok := p.App("app1")
		if !ok || a.AllocatedCount() != 1 {
			t.Errorf("recovered app missing or empty")
		}
		if err := e.Verify(); err != nil {
			t.Error(err)
		}
	})
}

func TestBadRequestsAreRejectedNotFatal(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	rec := newRecorder()
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: "partitions: [{name: x, queues: [{name: root, bogus: 1}]}]"}, rec); err == nil {
		t.Fatal("bad config accepted")
	}
	if _, err := s.RegisterResourceManager(nil, rec); err == nil {
		t.Fatal("nil request accepted")
	}
	if err := s.UpdateNode(nil); err == nil {
		t.Fatal("nil node request accepted")
	}
	if err := s.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "ghost"}); err == nil {
		t.Fatal("config update for unknown RM accepted")
	}
	s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec)
	neg := &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: -5}}}
	s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{nil, {NodeID: "n", Action: si.NodeInfo_CREATE, SchedulableResource: neg}}})
	rec.await(t, "negative node rejected", func() bool { return len(rec.rejNodes) == 1 })
	if err := s.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "rm1", Config: "partitions: []"}); err == nil {
		t.Fatal("config without partitions accepted")
	}
	s.Stop()
	if err := s.UpdateApplication(&si.ApplicationRequest{}); err != ErrStopped {
		t.Fatalf("after Stop: %v", err)
	}
}

func TestManualServiceIsDeterministic(t *testing.T) {
	run := func() []string {
		v := clock.NewVirtual(time.Unix(1000, 0))
		s := NewManual(v)
		rec := newRecorder()
		if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "sim", Config: cfg}, rec); err != nil {
			t.Fatal(err)
		}
		var nodes []*si.NodeInfo
		for i := range 10 {
			nodes = append(nodes, &si.NodeInfo{NodeID: fmt.Sprint("n", i), Action: si.NodeInfo_CREATE, SchedulableResource: res(2000, 4<<30)})
		}
		s.UpdateNode(&si.NodeRequest{RmID: "sim", Nodes: nodes})
		s.UpdateApplication(&si.ApplicationRequest{RmID: "sim", New: []*si.AddApplicationRequest{
			{ApplicationID: "a", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "u"}},
			{ApplicationID: "b", QueueName: "root.b", Ugi: &si.UserGroupInformation{User: "u"}},
		}})
		var asks []*si.Allocation
		for i := range 30 {
			asks = append(asks, &si.Allocation{AllocationKey: fmt.Sprint("k", i), ApplicationID: []string{"a", "b"}[i%2], ResourcePerAlloc: res(500, 1<<30)})
		}
		s.UpdateAllocation(&si.AllocationRequest{RmID: "sim", Allocations: asks})
		if len(rec.allocs) != 0 {
			t.Fatal("manual service acted before Cycle")
		}
		s.Cycle()
		v.Advance(time.Second)
		s.Cycle()
		var out []string
		for _, a := range rec.allocs {
			out = append(out, a.AllocationKey+"@"+a.NodeID)
		}
		return out
	}
	first, second := run(), run()
	if len(first) != 30 {
		t.Fatalf("allocated %d, want 30", len(first))
	}
	if fmt.Sprint(first) != fmt.Sprint(second) {
		t.Fatalf("two runs differ:\n%v\n%v", first, second)
	}
}

func TestPredicatesVetoNodes(t *testing.T) {
	s := New(clock.Real{})
	defer s.Stop()
	rec := newRecorder()
	rec.veto = map[string]bool{"n0": true, "n1": true}
	s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec)
	var nodes []*si.NodeInfo
	for i := range 3 {
		nodes = append(nodes, &si.NodeInfo{NodeID: fmt.Sprint("n", i), Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)})
	}
	s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: nodes})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{{ApplicationID: "a", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "u"}}}})
	var asks []*si.Allocation
	for i := range 6 {
		asks = append(asks, &si.Allocation{AllocationKey: fmt.Sprint("k", i), ApplicationID: "a", ResourcePerAlloc: res(1000, 1)})
	}
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks})
	rec.await(t, "4 allocations", func() bool { return len(rec.allocs) == 4 })
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, a := range rec.allocs {
		if a.NodeID != "n2" {
			t.Fatalf("%s placed on vetoed node %s", a.AllocationKey, a.NodeID)
		}
	}
}

func TestEventsReachTheRM(t *testing.T) {
	v := clock.NewVirtual(time.Unix(1000, 0))
	s := NewManual(v)
	rec := newRecorder()
	s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "sim", Config: cfg}, rec)
	s.UpdateNode(&si.NodeRequest{RmID: "sim", Nodes: []*si.NodeInfo{{NodeID: "n0", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)}}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "sim", New: []*si.AddApplicationRequest{{ApplicationID: "a", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}}}})
	s.UpdateAllocation(&si.AllocationRequest{RmID: "sim", Allocations: []*si.Allocation{{AllocationKey: "k", ApplicationID: "a", ResourcePerAlloc: res(1000, 1)}}})
	s.Cycle()
	seen := map[string]bool{}
	for _, e := range rec.events {
		seen[e.Type.String()+" "+e.EventChangeType.String()+" "+e.EventChangeDetail.String()+" "+e.ObjectID+" "+e.ReferenceID] = true
		if e.TimestampNano != time.Unix(1000, 0).UnixNano() {
			t.Fatalf("event %v at %d", e, e.TimestampNano)
		}
	}
	for _, want := range []string{
		"NODE ADD DETAILS_NONE n0 ",
		"APP ADD APP_NEW a ",
		"APP ADD APP_REQUEST a k",
		"APP SET APP_ACCEPTED a ",
		"APP ADD APP_ALLOC a k",
		"APP SET APP_RUNNING a ",
		"USERGROUP ADD UG_USER_RESOURCE alice root.a",
	} {
		if !seen[want] {
			t.Errorf("no event %q in %v", want, seen)
		}
	}
}

// When the buffer is full between two pushes, new records are dropped and
// counted, as the reference's event store does: the oldest are kept.
func TestEventBufferKeepsOldest(t *testing.T) {
	s := NewManual(clock.NewVirtual(time.Unix(0, 0)))
	var recs []event.Record
	for i := range EventCapacity + 10 {
		recs = append(recs, event.Record{Type: event.App, ObjectID: fmt.Sprint(i)})
	}
	sink := s.eventSink("rm")
	for i := range recs {
		sink(&recs[i])
	}
	b := s.events["rm"]
	got := b.take()
	if len(got) != EventCapacity || b.dropped != 10 || got[0].ObjectID != "0" || got[len(got)-1].ObjectID != fmt.Sprint(EventCapacity-1) {
		t.Fatalf("buffer %d, dropped %d, oldest %s", len(got), b.dropped, got[0].ObjectID)
	}
}

// TestEventRequestCapacity: the RM's event.requestCapacity sizes its event
// buffer at registration and on reload, keeping the oldest records.
func TestEventRequestCapacity(t *testing.T) {
	s := NewManual(clock.NewVirtual(time.Unix(0, 0)))
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm", PolicyGroup: "queues",
		ExtraConfig: map[string]string{"event.requestCapacity": "5"}}, callback.Nop{}); err != nil {
		t.Fatal(err)
	}
	s.events["rm"].take() // the root queue's creation
	for i := range 8 {
		s.eventSink("rm")(&event.Record{Type: event.App, ObjectID: fmt.Sprint(i)})
	}
	b := s.events["rm"]
	if len(b.recs) != 5 || b.dropped != 3 {
		t.Fatalf("capacity 5: %d buffered, %d dropped", len(b.recs), b.dropped)
	}
	// a reload to 2 keeps the oldest two
	if err := s.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "rm", PolicyGroup: "queues",
		ExtraConfig: map[string]string{"event.requestCapacity": "2"}}); err != nil {
		t.Fatal(err)
	}
	got := b.take()
	if len(got) != 2 || got[0].ObjectID != "0" || got[1].ObjectID != "1" || b.dropped != 6 {
		t.Fatalf("after reload: %v, dropped %d", got, b.dropped)
	}
	// a reload without the key goes back to the default
	if err := s.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "rm", PolicyGroup: "queues", ExtraConfig: map[string]string{"log.level": "info"}}); err != nil {
		t.Fatal(err)
	}
	if cap(b.recs) != EventCapacity {
		t.Errorf("capacity %d after the key went, want %d", cap(b.recs), EventCapacity)
	}
}

// TestPreemptionPredicatesReachTheRM: a preemption plan is offered to the
// RM's PreemptionPredicates with the chosen victims first and startIndex
// at the last of them; no answer refuses the plan, and an answer whose
// index reaches past startIndex takes that many victims.
func TestPreemptionPredicatesReachTheRM(t *testing.T) {
	v := clock.NewVirtual(time.Unix(1000, 0))
	s := NewManual(v)
	rec := newRecorder()
	rec.preempt = func(*si.PreemptionPredicatesArgs) *si.PreemptionPredicatesResponse { return nil }
	conf := `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources: {guaranteed: {vcore: 4000}}
          - name: b
`
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: conf}, rec); err != nil {
		t.Fatal(err)
	}
	s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n0", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)}}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "rm1", New: []*si.AddApplicationRequest{
		{ApplicationID: "a", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "u"}},
		{ApplicationID: "b", QueueName: "root.b", Ugi: &si.UserGroupInformation{User: "u"}},
	}})
	var asks []*si.Allocation
	for i := range 4 {
		asks = append(asks, &si.Allocation{AllocationKey: fmt.Sprint("b", i), ApplicationID: "b", ResourcePerAlloc: res(1000, 1<<20)})
	}
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks})
	s.Cycle()
	if len(rec.allocs) != 4 {
		t.Fatalf("allocated %d, want 4", len(rec.allocs))
	}
	s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{{AllocationKey: "a0", ApplicationID: "a", ResourcePerAlloc: res(2000, 1<<20)}}})
	s.Cycle()
	v.Advance(31 * time.Second) // past preemption.delay
	s.Cycle()
	if len(rec.checks) != 1 {
		t.Fatalf("PreemptionPredicates called %d times, want 1", len(rec.checks))
	}
	c := rec.checks[0]
	if c.AllocationKey != "a0" || c.NodeID != "n0" || c.StartIndex != 1 || len(c.PreemptAllocationKeys) != 4 {
		t.Fatalf("args = %v; want a0 on n0, 4 victims offered, startIndex 1", c)
	}
	if len(rec.released) != 0 {
		t.Fatalf("released %d with no answer from the RM", len(rec.released))
	}
	rec.preempt = func(*si.PreemptionPredicatesArgs) *si.PreemptionPredicatesResponse {
		return &si.PreemptionPredicatesResponse{Success: true, Index: 2}
	}
	v.Advance(16 * time.Second) // past the retry interval
	s.Cycle()
	if len(rec.checks) != 2 || len(rec.released) != 3 {
		t.Fatalf("checks %d, released %d; want 2 and 3", len(rec.checks), len(rec.released))
	}
	for i, r := range rec.released {
		if r.TerminationType != si.TerminationType_PREEMPTED_BY_SCHEDULER || r.AllocationKey != c.PreemptAllocationKeys[i] {
			t.Fatalf("release %d = %v, want %s preempted", i, r, c.PreemptAllocationKeys[i])
		}
	}
}

// TestEveryEventHasItsTime: every record, NODE and USERGROUP ones
// included, carries the time it happened, both in the event history (the
// REST API's records, through the Event hook) and in what SendEvent gives
// the RM later.
func TestEveryEventHasItsTime(t *testing.T) {
	v := clock.NewVirtual(time.Unix(1000, 0))
	s := NewManual(v)
	var hooked []event.Record
	s.SetHooks(Hooks{Event: func(_ string, _ *resource.Registry, r *event.Record) { hooked = append(hooked, *r) }})
	rec := newRecorder()
	s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "sim", Config: cfg}, rec)
	v.Advance(time.Second)
	s.UpdateNode(&si.NodeRequest{RmID: "sim", Nodes: []*si.NodeInfo{{NodeID: "n0", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)}}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "sim", New: []*si.AddApplicationRequest{{ApplicationID: "a", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}}}})
	s.UpdateAllocation(&si.AllocationRequest{RmID: "sim", Allocations: []*si.Allocation{{AllocationKey: "k", ApplicationID: "a", ResourcePerAlloc: res(1000, 1)}}})
	s.Cycle()
	v.Advance(5 * time.Second) // the push comes later: the times stay
	s.Cycle()
	types := map[event.Type]bool{}
	for _, r := range hooked {
		types[r.Type] = true
		if r.Time < time.Unix(1000, 0).UnixNano() || r.Time > time.Unix(1001, 0).UnixNano() {
			t.Errorf("history record %+v at %d", r, r.Time)
		}
	}
	for _, ty := range []event.Type{event.App, event.Node, event.Queue, event.UserGroup} {
		if !types[ty] {
			t.Errorf("no record of type %d among %d", ty, len(hooked))
		}
	}
	if len(rec.events) != len(hooked) {
		t.Fatalf("the RM got %d events, the history %d", len(rec.events), len(hooked))
	}
	for i, e := range rec.events {
		if e.TimestampNano != hooked[i].Time {
			t.Errorf("event %v sent at %d, recorded at %d", e, e.TimestampNano, hooked[i].Time)
		}
	}
}

// TestEngineLogsThroughHooks: the Loggers hook gives the engine its
// loggers, so the scheduler's decisions reach the log under the
// reference's names.
func TestEngineLogsThroughHooks(t *testing.T) {
	var buf bytes.Buffer
	logs := logging.NewText(&buf)
	if err := logs.Apply(map[string]string{"log.core.scheduler.allocation.level": "debug"}); err != nil {
		t.Fatal(err)
	}
	v := clock.NewVirtual(time.Unix(1000, 0))
	s := NewManual(v)
	s.SetHooks(Hooks{Loggers: logs.Logger})
	s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "sim", Config: cfg}, newRecorder())
	s.UpdateNode(&si.NodeRequest{RmID: "sim", Nodes: []*si.NodeInfo{{NodeID: "n0", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30)}}})
	s.UpdateApplication(&si.ApplicationRequest{RmID: "sim", New: []*si.AddApplicationRequest{{ApplicationID: "a", QueueName: "root.a", Ugi: &si.UserGroupInformation{User: "alice"}}}})
	s.UpdateAllocation(&si.AllocationRequest{RmID: "sim", Allocations: []*si.Allocation{{AllocationKey: "k", ApplicationID: "a", ResourcePerAlloc: res(1000, 1)}}})
	s.Cycle()
	if out := buf.String(); !strings.Contains(out, "msg=allocated logger=core.scheduler.allocation appID=a allocationKey=k nodeID=n0") {
		t.Errorf("no allocation logged:\n%s", out)
	}
}
