package grpcserver

import (
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// tagged is an allocation list of n items with resources of two shapes
// (shared by pointer) and tags, as the Kubernetes shim's asks carry.
func tagged(n int) []*si.Allocation {
	shapes := [2]*si.Resource{
		{Resources: map[string]*si.Quantity{"vcore": {Value: 1000}, "memory": {Value: 1 << 30}}},
		{Resources: map[string]*si.Quantity{"vcore": {Value: 500}, "nvidia.com/gpu": {Value: 1}}},
	}
	var out []*si.Allocation
	for i := range n {
		out = append(out, &si.Allocation{AllocationKey: fmt.Sprintf("ask-%03d", i), ApplicationID: "app1", Priority: int32(i % 3),
			ResourcePerAlloc: shapes[i%2], PreemptionPolicy: &si.PreemptionPolicy{AllowPreemptSelf: true},
			AllocationTags: map[string]string{"kubernetes.io/meta/namespace": "default", "kubernetes.io/meta/podName": fmt.Sprint("pod-", i)}})
	}
	return out
}

// The server's codec and a peer with protobuf-go's own (grpc-go's
// default) understand each other both ways: asks sent by the peer arrive
// as sent (those of one shape sharing their resources), and allocations
// sent by the server arrive as sent.
func TestListsWithProtobufGoPeer(t *testing.T) {
	h := start(t, Options{})
	c, _ := h.dial(t) // grpc-go's default codec
	h.register(t, c, "rm1")
	h.addApp(t, c, "rm1", "app1", 1)
	stream, err := c.UpdateAllocation(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	req := &si.AllocationRequest{RmID: "rm1", Allocations: tagged(50)}
	if err := stream.Send(req); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool {
		h.api.mu.Lock()
		defer h.api.mu.Unlock()
		return len(h.api.allocs) == 1
	}, "asks forwarded")
	h.api.mu.Lock()
	got := h.api.allocs
	h.api.mu.Unlock()
	if len(got) != 1 || !proto.Equal(got[0], req) {
		t.Fatalf("the server took in %v, the peer sent %v", got, req)
	}
	// decoded by the server's codec: asks of one shape share one message,
	// whatever order protobuf-go wrote their map's entries in
	distinct := map[*si.Resource]bool{}
	for _, a := range got[0].Allocations {
		distinct[a.ResourcePerAlloc] = true
	}
	if len(distinct) != 2 {
		t.Fatalf("the server's 50 asks of two shapes hold %d resource messages", len(distinct))
	}
	resp := &si.AllocationResponse{New: tagged(40), Released: []*si.AllocationRelease{{AllocationKey: "gone", ApplicationID: "app1"}}}
	if err := h.api.cb("rm1").UpdateAllocation(resp); err != nil {
		t.Fatal(err)
	}
	back, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(back, resp) {
		t.Fatalf("the peer received %v, the server sent %v", back, resp)
	}
}
