package grpcserver

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/protocodec"
)

// failingStream records the messages sent on it and fails the send
// numbered failAt (from 1; 0 never).
type failingStream struct {
	grpc.ServerStream
	sent   []proto.Message
	failAt int
}

var errBroken = errors.New("stream broken")

func (f *failingStream) SendMsg(m any) error {
	if f.failAt > 0 && len(f.sent)+1 == f.failAt {
		return errBroken
	}
	s, ok := m.(*protocodec.Encoded)
	if !ok {
		return fmt.Errorf("sent a %T, not an encoded message", m)
	}
	if len(s.Bytes) != proto.Size(s.Message) {
		return fmt.Errorf("sent %d bytes, the message is %d", len(s.Bytes), proto.Size(s.Message))
	}
	f.sent = append(f.sent, s.Message)
	return nil
}

// newKeys lists the new allocations' keys of AllocationResponses, in order.
func newKeys(t *testing.T, msgs []proto.Message) []string {
	t.Helper()
	var keys []string
	for _, m := range msgs {
		for _, a := range m.(*si.AllocationResponse).New {
			keys = append(keys, a.AllocationKey)
		}
	}
	return keys
}

// A send that fails part-way through a split response hands back the
// parts not sent and the responses after it, and none of the parts sent:
// the RM must not hear of an allocation twice.
func TestSendAllReturnsOnlyTheUnsent(t *testing.T) {
	big, small := allocResponse(100), &si.AllocationResponse{New: []*si.Allocation{{AllocationKey: "last", ApplicationID: "app1", NodeID: "node-1"}}}
	big.Released = nil
	const limit = 1000
	all := newKeys(t, []proto.Message{big, small})
	// nothing fails: everything sent, nothing handed back
	whole := &failingStream{}
	unsent, err := sendAll[si.AllocationResponse](whole, []proto.Message{big, small}, limit, func(proto.Message) {})
	if err != nil || unsent != nil || !slices.Equal(newKeys(t, whole.sent), all) || len(whole.sent) < 3 {
		t.Fatalf("no failure: %d sent, %d handed back, err %v", len(whole.sent), len(unsent), err)
	}
	for failAt := 1; failAt <= len(whole.sent); failAt++ {
		st := &failingStream{failAt: failAt}
		unsent, err := sendAll[si.AllocationResponse](st, []proto.Message{big, small}, limit, func(proto.Message) { t.Fatal("no message is of the wrong type") })
		if !errors.Is(err, errBroken) {
			t.Fatalf("fail at %d: err %v", failAt, err)
		}
		if len(st.sent) != failAt-1 {
			t.Fatalf("fail at %d: %d sent", failAt, len(st.sent))
		}
		sent, rest := newKeys(t, st.sent), newKeys(t, unsent)
		if got := append(slices.Clone(sent), rest...); !slices.Equal(got, all) {
			t.Fatalf("fail at %d: sent %v then handed back %v, want each of %d keys once, in order", failAt, sent, rest, len(all))
		}
		if rest[len(rest)-1] != "last" {
			t.Fatalf("fail at %d: the later response is not handed back", failAt)
		}
	}
}

func TestSendAllDropsWrongTypes(t *testing.T) {
	st := &failingStream{}
	var dropped []proto.Message
	wrong := &si.NodeResponse{}
	unsent, err := sendAll[si.AllocationResponse](st, []proto.Message{wrong, allocResponse(2)}, 1<<20, func(m proto.Message) { dropped = append(dropped, m) })
	if err != nil || unsent != nil || len(dropped) != 1 || dropped[0] != wrong || len(st.sent) != 1 {
		t.Fatalf("sent %d, dropped %v, err %v", len(st.sent), dropped, err)
	}
}
