package cbwire

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// roundTrip marshals m and unmarshals the bytes into fresh.
func roundTrip(t *testing.T, m, fresh proto.Message) proto.Message {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(b, fresh); err != nil {
		t.Fatal(err)
	}
	return fresh
}

func TestRequestRoundTrip(t *testing.T) {
	for _, r := range []*Request{
		{},
		{ID: 7, Predicates: &si.PredicatesArgs{AllocationKey: "a1", NodeID: "n1", Allocate: true}},
		{ID: 8, PreemptionPredicates: &si.PreemptionPredicatesArgs{AllocationKey: "a1", NodeID: "n1", PreemptAllocationKeys: []string{"v1", "v2"}, StartIndex: 1}},
		{Events: []*si.EventRecord{
			{Type: si.EventRecord_REQUEST, ObjectID: "a1", ReferenceID: "app1", Message: "m", TimestampNano: 5,
				Resource: &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: 100}}}},
			{Type: si.EventRecord_APP, ObjectID: "app1", EventChangeType: si.EventRecord_ADD},
		}},
		{ContainerState: &si.UpdateContainerSchedulingStateRequest{ApplicationID: "app1", AllocationKey: "a1",
			State: si.UpdateContainerSchedulingStateRequest_FAILED, Reason: "no fit"}},
	} {
		got, err := ParseRequest(roundTrip(t, r.Message(), NewRequestMessage()))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(r, got, protocmp.Transform()); d != "" {
			t.Errorf("request changed on the wire (-sent +received):\n%s", d)
		}
	}
}

func TestReplyRoundTrip(t *testing.T) {
	for _, r := range []*Reply{
		{RmID: "rm1", Handles: []string{Predicates, SendEvent}},
		{ID: 3, PredicatesError: "node n1: taint"},
		{ID: 4, PreemptionPredicates: &si.PreemptionPredicatesResponse{Success: true, Index: 2}},
	} {
		got, err := ParseReply(roundTrip(t, r.Message(), NewReplyMessage()))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(r, got, protocmp.Transform()); d != "" {
			t.Errorf("reply changed on the wire (-sent +received):\n%s", d)
		}
	}
}

// The field numbers are the ones callbacks.proto declares: a reply
// encoded by hand as another language would decodes the same.
func TestReplyFieldNumbers(t *testing.T) {
	// rm_id = 1 "rm", handles = 2 "Predicates", id = 3 9
	b := []byte{0x0a, 2, 'r', 'm', 0x12, 10, 'P', 'r', 'e', 'd', 'i', 'c', 'a', 't', 'e', 's', 0x18, 9}
	m := NewReplyMessage()
	if err := proto.Unmarshal(b, m); err != nil {
		t.Fatal(err)
	}
	got, err := ParseReply(m)
	if err != nil {
		t.Fatal(err)
	}
	if got.RmID != "rm" || len(got.Handles) != 1 || got.Handles[0] != Predicates || got.ID != 9 {
		t.Fatalf("decoded %+v", got)
	}
}

func TestParseSet(t *testing.T) {
	s, err := ParseSet([]string{SendEvent, Predicates})
	if err != nil || !s.Has(BitPredicates) || !s.Has(BitSendEvent) || s.Has(BitPreemptionPredicates) {
		t.Fatalf("ParseSet = %b, %v", s, err)
	}
	if got := s.List(); len(got) != 2 || got[0] != Predicates || got[1] != SendEvent {
		t.Fatalf("List = %q", got)
	}
	if _, err := ParseSet([]string{"Bogus"}); err == nil {
		t.Fatal("an unknown callback name was accepted")
	}
}
