package protocodec

import (
	"fmt"
	"testing"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// response is an allocation response of n allocations with their
// resources and tags, the maps that make sizing and marshaling cost.
func response(n int) *si.AllocationResponse {
	r := &si.AllocationResponse{}
	for i := range n {
		r.New = append(r.New, &si.Allocation{
			AllocationKey:    fmt.Sprintf("alloc-%05d", i),
			ApplicationID:    fmt.Sprintf("app-%d", i%7),
			NodeID:           fmt.Sprintf("node-%d", i%13),
			ResourcePerAlloc: &si.Resource{Resources: map[string]*si.Quantity{"memory": {Value: int64(i) << 20}, "vcore": {Value: 1000}}},
			AllocationTags:   map[string]string{"kubernetes.io/meta/namespace": "default"},
		})
	}
	return r
}

// same reports whether got encodes m in len(want) bytes (map entries
// come in any order, so the bytes are compared decoded).
func same(t *testing.T, d mem.BufferSlice, want []byte, m proto.Message) bool {
	t.Helper()
	defer d.Free()
	got := d.Materialize()
	back := m.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(got, back); err != nil {
		t.Fatal(err)
	}
	return len(got) == len(want) && proto.Equal(back, m)
}

func TestSizedMarshalsAsProto(t *testing.T) {
	c := Codec{}
	for _, n := range []int{0, 1, 5, 300} { // 300: above grpc-go's pooling threshold
		m := response(n)
		want, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		d, err := c.Marshal(&Sized{Message: m, Size: proto.Size(m)})
		if err != nil {
			t.Fatal(err)
		}
		if !same(t, d, want, m) {
			t.Fatalf("%d allocations: not as proto.Marshal", n)
		}
		// decoded back whole, through the codec
		back := &si.AllocationResponse{}
		d, _ = c.Marshal(&Sized{Message: m, Size: proto.Size(m)})
		if err := c.Unmarshal(d, back); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(back, m) {
			t.Fatalf("%d allocations: decoded %v", n, back)
		}
	}
}

func TestOtherMessagesAsGRPC(t *testing.T) {
	m := response(3)
	want, _ := proto.Marshal(m)
	d, err := Codec{}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !same(t, d, want, m) {
		t.Fatal("plain message: not as proto.Marshal")
	}
	if _, err := (Codec{}).Marshal(struct{}{}); err == nil {
		t.Fatal("a value that is no message was marshaled")
	}
	if Codec.Name(Codec{}) != encoding.GetCodecV2("proto").Name() {
		t.Fatal("the codec's name differs from grpc-go's protocol buffers codec")
	}
}

// A Sized handed to a server without this codec is sent by grpc-go's
// own codec as the message it holds.
func TestSizedThroughGRPCCodec(t *testing.T) {
	m := response(4)
	want, _ := proto.Marshal(m)
	d, err := encoding.GetCodecV2("proto").Marshal(&Sized{Message: m, Size: proto.Size(m)})
	if err != nil {
		t.Fatal(err)
	}
	if !same(t, d, want, m) {
		t.Fatal("not as proto.Marshal")
	}
}

// BenchmarkMarshal compares, per response of 100 allocations, the send
// path before (split's proto.Size, then grpc-go's codec, which sizes it
// again) and now (split's proto.Size, then the codec marshals it sized).
func BenchmarkMarshal(b *testing.B) {
	m := response(100)
	grpcCodec := encoding.GetCodecV2("proto")
	b.Run("codec=grpc", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_ = proto.Size(m)
			d, err := grpcCodec.Marshal(m)
			if err != nil {
				b.Fatal(err)
			}
			d.Free()
		}
	})
	b.Run("codec=sized", func(b *testing.B) {
		b.ReportAllocs()
		c := Codec{}
		for range b.N {
			d, err := c.Marshal(&Sized{Message: m, Size: proto.Size(m)})
			if err != nil {
				b.Fatal(err)
			}
			d.Free()
		}
	})
}
