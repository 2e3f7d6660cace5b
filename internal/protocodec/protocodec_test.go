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
// resources (of four shapes, shared by pointer as Paddock's are) and
// tags, the maps that make encoding and decoding cost.
func response(n int) *si.AllocationResponse {
	var shapes [4]*si.Resource
	for i := range shapes {
		shapes[i] = &si.Resource{Resources: map[string]*si.Quantity{"memory": {Value: int64(i+1) << 30}, "vcore": {Value: 1000}}}
	}
	r := &si.AllocationResponse{}
	for i := range n {
		r.New = append(r.New, &si.Allocation{
			AllocationKey:    fmt.Sprintf("alloc-%05d", i),
			ApplicationID:    fmt.Sprintf("app-%d", i%7),
			NodeID:           fmt.Sprintf("node-%d", i%13),
			ResourcePerAlloc: shapes[i%len(shapes)],
			AllocationTags:   map[string]string{"kubernetes.io/meta/namespace": "default"},
		})
	}
	r.Released = []*si.AllocationRelease{{AllocationKey: "gone", ApplicationID: "app-1"}}
	return r
}

// same reports whether got, decoded by proto.Unmarshal, is m, in as many
// bytes as proto.Marshal's (map entries and fields come in any order, so
// the bytes themselves are not compared).
func same(t *testing.T, d mem.BufferSlice, m proto.Message) bool {
	t.Helper()
	defer d.Free()
	got := d.Materialize()
	back := m.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(got, back); err != nil {
		t.Fatal(err)
	}
	return len(got) == proto.Size(m) && proto.Equal(back, m)
}

func TestListsThroughTheCodec(t *testing.T) {
	c := Codec{}
	for _, n := range []int{0, 1, 5, 300} {
		m := response(n)
		d, err := c.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if !same(t, d, m) {
			t.Fatalf("%d allocations: not as proto.Marshal", n)
		}
		back := &si.AllocationResponse{}
		d, _ = c.Marshal(m)
		if err := c.Unmarshal(d, back); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(back, m) {
			t.Fatalf("%d allocations: decoded %v", n, back)
		}
	}
}

func TestEncodedSendsItsBytes(t *testing.T) {
	m := response(10)
	b, err := Append(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Codec{}.Marshal(&Encoded{Message: m, Bytes: b})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Materialize(); string(got) != string(b) {
		t.Fatal("an Encoded was not sent as its bytes")
	}
	// without bytes it is encoded, errors included
	if d, err := (Codec{}).Marshal(&Encoded{Message: m}); err != nil || !same(t, d, m) {
		t.Fatalf("an Encoded without bytes: %v", err)
	}
	// a nil allocation is encoded as proto.Marshal encodes it (empty)
	holed := &si.AllocationResponse{New: []*si.Allocation{{AllocationKey: "a"}, nil}}
	want, _ := proto.Marshal(holed)
	if d, err := (Codec{}).Marshal(holed); err != nil || string(d.Materialize()) != string(want) {
		t.Fatalf("a list with a nil allocation: %v", err)
	}
}

func TestOtherMessagesAsGRPC(t *testing.T) {
	m := &si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n1", SchedulableResource: &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: 1}}}}}}
	d, err := Codec{}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !same(t, d, m) {
		t.Fatal("plain message: not as proto.Marshal")
	}
	if _, err := (Codec{}).Marshal(struct{}{}); err == nil {
		t.Fatal("a value that is no message was marshaled")
	}
	if Codec.Name(Codec{}) != encoding.GetCodecV2("proto").Name() {
		t.Fatal("the codec's name differs from grpc-go's protocol buffers codec")
	}
}

// An Encoded handed to a server without this codec is sent by grpc-go's
// own codec as the message it holds.
func TestEncodedThroughGRPCCodec(t *testing.T) {
	m := response(4)
	b, _ := Append(nil, m)
	d, err := encoding.GetCodecV2("proto").Marshal(&Encoded{Message: m, Bytes: b})
	if err != nil {
		t.Fatal(err)
	}
	if !same(t, d, m) {
		t.Fatal("not as proto.Marshal")
	}
}

// BenchmarkMarshal compares, per response of 100 allocations, the send
// path of grpc-go's codec (proto.Size to split it, then a marshal that
// sizes it again) with this codec's (Append, whose bytes tell the size).
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
	b.Run("codec=paddock", func(b *testing.B) {
		b.ReportAllocs()
		c := Codec{}
		for range b.N {
			e, err := Append(nil, m)
			if err != nil {
				b.Fatal(err)
			}
			d, err := c.Marshal(&Encoded{Message: m, Bytes: e})
			if err != nil {
				b.Fatal(err)
			}
			d.Free()
		}
	})
}

// BenchmarkUnmarshal compares decoding a response of 100 allocations with
// grpc-go's codec and with this one.
func BenchmarkUnmarshal(b *testing.B) {
	data, err := proto.Marshal(response(100))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []encoding.CodecV2{encoding.GetCodecV2("proto"), Codec{}} {
		name := "grpc"
		if _, ok := c.(Codec); ok {
			name = "paddock"
		}
		b.Run("codec="+name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				var m si.AllocationResponse
				if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(data)}, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAppendOne encodes a response of one allocation, as an RM whose
// node checks see each allocation gets one per allocation.
func BenchmarkAppendOne(b *testing.B) {
	m := &si.AllocationResponse{New: response(1).New}
	b.ReportAllocs()
	var buf []byte
	for range b.N {
		var err error
		if buf, err = Append(buf[:0], m); err != nil {
			b.Fatal(err)
		}
	}
}
