package grpcserver

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/client"
)

// BenchmarkForward measures RM requests through a stream to the API.
func BenchmarkForward(b *testing.B) {
	h := start(b, Options{})
	c, _ := h.dial(b)
	h.register(b, c, "rm1")
	st, _ := nodeStream(b, c, &si.NodeRequest{RmID: "rm1"})
	req := &si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n1", Action: si.NodeInfo_UPDATE}}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := st.Send(req); err != nil {
			b.Fatal(err)
		}
	}
	eventually(b, func() bool {
		h.api.mu.Lock()
		defer h.api.mu.Unlock()
		return len(h.api.nodes) == b.N
	}, "%d requests forwarded", b.N)
}

// BenchmarkDeliver measures scheduler responses (100 allocations each)
// from the callback to the RM's stream.
func BenchmarkDeliver(b *testing.B) {
	h := start(b, Options{BufferLimit: 1 << 30})
	c, _ := h.dial(b)
	h.register(b, c, "rm1")
	alloc, _, _, _ := openAll(b, c, "rm1")
	resp := &si.AllocationResponse{}
	for i := range 100 {
		resp.New = append(resp.New, &si.Allocation{AllocationKey: fmt.Sprint("k", i), ApplicationID: "app1", NodeID: "n1"})
	}
	cb := h.api.cb("rm1")
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		for range b.N {
			_ = cb.UpdateAllocation(resp)
		}
	}()
	for range b.N {
		if _, err := alloc.Recv(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkForwardAllocation measures asks of an accepted application
// through the allocation stream to the API (the path that checks the
// application is known before forwarding).
func BenchmarkForwardAllocation(b *testing.B) {
	h := start(b, Options{})
	c, _ := h.dial(b)
	h.register(b, c, "rm1")
	h.addApp(b, c, "rm1", "app1", 1)
	st, err := c.UpdateAllocation(ctx(b))
	if err != nil {
		b.Fatal(err)
	}
	req := &si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{{AllocationKey: "k1", ApplicationID: "app1"}}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := st.Send(req); err != nil {
			b.Fatal(err)
		}
	}
	eventually(b, func() bool {
		h.api.mu.Lock()
		defer h.api.mu.Unlock()
		return len(h.api.allocs) == b.N
	}, "%d requests forwarded", b.N)
}

// BenchmarkCallbacksNotAsked measures the callbacks the scheduler makes
// for an RM that did not open the Callbacks stream (a Predicates and a
// PreemptionPredicates call, an event): answered by the server itself.
func BenchmarkCallbacksNotAsked(b *testing.B) {
	h := start(b, Options{})
	c, _ := h.dial(b)
	h.register(b, c, "rm1")
	cb := h.api.cb("rm1")
	pa := &si.PredicatesArgs{AllocationKey: "k1", NodeID: "n1", Allocate: true}
	pp := &si.PreemptionPredicatesArgs{AllocationKey: "k1", NodeID: "n1"}
	ev := []*si.EventRecord{{Type: si.EventRecord_APP, ObjectID: "app1"}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := cb.Predicates(pa); err != nil {
			b.Fatal(err)
		}
		if r := cb.PreemptionPredicates(pp); !r.Success {
			b.Fatal("plan refused")
		}
		cb.SendEvent(ev)
	}
}

// BenchmarkPredicatesRelayed measures one Predicates call relayed to an
// RM over its Callbacks stream and answered (a loopback round trip).
func BenchmarkPredicatesRelayed(b *testing.B) {
	h := start(b, Options{})
	c, err := client.Dial(ctx(b), h.addr, client.Options{Callbacks: client.Predicates})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	if err := c.Register(ctx(b), &si.RegisterResourceManagerRequest{RmID: "rm1"}, callback.Nop{}); err != nil {
		b.Fatal(err)
	}
	cb := h.api.cb("rm1")
	pa := &si.PredicatesArgs{AllocationKey: "k1", NodeID: "n1", Allocate: true}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := cb.Predicates(pa); err != nil {
			b.Fatal(err)
		}
	}
}

// nopAPI accepts every request and does nothing.
type nopAPI struct{ *fakeAPI }

func (nopAPI) UpdateAllocation(*si.AllocationRequest) error { return nil }

// BenchmarkAllocationOrderCheck measures what the cross-stream order check
// adds to one allocation request of 10 asks of an application already
// sent, without the network: the decision, then the hand-over to an API
// that does nothing.
func BenchmarkAllocationOrderCheck(b *testing.B) {
	s := New(nopAPI{newFakeAPI()}, Options{})
	ss := newSession(s, &rmEntry{id: "rm1"}, time.Now())
	ss.ord.apps["app1"] = struct{}{}
	req := &si.AllocationRequest{RmID: "rm1"}
	for i := range 10 {
		req.Allocations = append(req.Allocations, &si.Allocation{AllocationKey: fmt.Sprint("k", i), ApplicationID: "app1"})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := s.allocation(ss, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPredicatesNotAsked measures the Predicates call the scheduler
// makes for every node it checks, for an RM that did not ask for it.
func BenchmarkPredicatesNotAsked(b *testing.B) {
	h := start(b, Options{})
	c, _ := h.dial(b)
	h.register(b, c, "rm1")
	cb := h.api.cb("rm1")
	pa := &si.PredicatesArgs{AllocationKey: "k1", NodeID: "n1", Allocate: true}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := cb.Predicates(pa); err != nil {
			b.Fatal(err)
		}
	}
}
