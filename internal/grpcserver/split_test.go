package grpcserver

import (
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/protocodec"
)

func allocResponse(n int) *si.AllocationResponse {
	r := &si.AllocationResponse{}
	for i := range n {
		r.New = append(r.New, &si.Allocation{AllocationKey: fmt.Sprintf("alloc-%03d", i), ApplicationID: "app1", NodeID: "node-1"})
	}
	r.Released = []*si.AllocationRelease{{AllocationKey: "gone", ApplicationID: "app1"}}
	return r
}

// keys lists the allocation keys of parts, in order, and checks each fits
// and carries its own size.
func keys(t *testing.T, parts []protocodec.Encoded, limit int) (news, released []string) {
	t.Helper()
	for _, p := range parts {
		size := proto.Size(p.Message)
		if size > limit {
			t.Errorf("part of %d bytes over the limit %d", size, limit)
		}
		if len(p.Bytes) != size {
			t.Errorf("part carries %d bytes, is %d", len(p.Bytes), size)
		}
		r := p.Message.(*si.AllocationResponse)
		for _, a := range r.New {
			news = append(news, a.AllocationKey)
		}
		for _, a := range r.Released {
			released = append(released, a.AllocationKey)
		}
	}
	return news, released
}

func TestSplit(t *testing.T) {
	full := allocResponse(100)
	size := proto.Size(full)
	tests := []struct {
		name      string
		limit     int
		wantParts func(int) bool
	}{
		{"fits", size, func(n int) bool { return n == 1 }},
		{"half", size/2 + 100, func(n int) bool { return n == 2 }},
		{"small", 500, func(n int) bool { return n >= size/500 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := split(full, tt.limit)
			if !tt.wantParts(len(parts)) {
				t.Fatalf("%d parts for a %d-byte response at limit %d", len(parts), size, tt.limit)
			}
			news, released := keys(t, parts, tt.limit)
			if len(news) != 100 || len(released) != 1 || released[0] != "gone" {
				t.Fatalf("parts carry %d new, released %v", len(news), released)
			}
			for i, k := range news {
				if want := fmt.Sprintf("alloc-%03d", i); k != want {
					t.Fatalf("item %d is %s, want %s (order kept)", i, k, want)
				}
			}
		})
	}
	// one item over the limit cannot be split: it is returned as it is
	one := allocResponse(1)
	one.Released = nil
	if parts := split(one, 10); len(parts) != 1 || !proto.Equal(parts[0].Message, one) || len(parts[0].Bytes) != proto.Size(one) {
		t.Fatalf("unsplittable response became %d parts", len(parts))
	}
}

func TestLargeResponsesAreSplitOnTheStream(t *testing.T) {
	h := start(t, Options{MaxSendMsgSize: 1000})
	c, _ := h.dial(t)
	h.register(t, c, "rm1")
	alloc, _, _, _ := openAll(t, c, "rm1")
	full := allocResponse(100)
	if err := h.api.cb("rm1").UpdateAllocation(full); err != nil {
		t.Fatal(err)
	}
	var got int
	for got < 101 {
		resp, err := alloc.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if size := proto.Size(resp); size > 1000 {
			t.Fatalf("received %d bytes in one message, limit 1000", size)
		}
		got += len(resp.New) + len(resp.Released)
	}
	if got != 101 {
		t.Fatalf("received %d items, want 101", got)
	}
}
