// Package protocodec is the gRPC codec of Paddock's server and client:
// the protocol buffers wire format, as grpc-go's own codec, with savings
// on the SI's allocation lists (an AllocationRequest's asks and an
// AllocationResponse's allocations), where nearly all of the cost of the
// gRPC path lay. It encodes and decodes the two maps of each allocation,
// its resources and its tags, itself, and decodes each distinct resource
// encoding of a message once (lists.go, resources.go, tags.go); it
// decodes into scratch buffers of its own (scratch.go); and it sends
// messages the server encoded already (Encoded: to split a response at
// the size limit, the server must know its size, and encoding it tells).
package protocodec

import (
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// Name is the codec's name, the content subtype on the wire: "proto", as
// grpc-go's own codec, so peers see no difference.
const Name = "proto"

// Encoded is a message with its encoding (Append), unchanged since; with
// nil Bytes the codec encodes the message. It is a proto.Message itself
// (the one it holds), so a server without this codec still sends it
// whole.
type Encoded struct {
	proto.Message
	Bytes []byte
}

// Codec marshals an Encoded as its bytes, the SI's allocation lists with
// Append, and everything else with grpc-go's own codec; it decodes the
// allocation lists with their resources interned and their tags by hand,
// everything else with grpc-go's codec.
type Codec struct{}

var _ encoding.CodecV2 = Codec{}

// Name returns "proto".
func (Codec) Name() string { return Name }

// Marshal encodes v.
func (c Codec) Marshal(v any) (mem.BufferSlice, error) {
	switch m := v.(type) {
	case *Encoded:
		if m.Bytes == nil {
			return c.Marshal(m.Message)
		}
		return mem.BufferSlice{mem.SliceBuffer(m.Bytes)}, nil
	case proto.Message:
		if _, _, ok := list(m); ok {
			b, err := Append(nil, m)
			if err != nil {
				return nil, err
			}
			return mem.BufferSlice{mem.SliceBuffer(b)}, nil
		}
	}
	return encoding.GetCodecV2(Name).Marshal(v)
}

// Unmarshal decodes data into v.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	m, _ := v.(proto.Message)
	_, num, ok := list(m)
	if !ok {
		return encoding.GetCodecV2(Name).Unmarshal(data, v)
	}
	var b []byte
	if len(data) == 1 {
		b = data[0].ReadOnlyData()
	} else {
		buf := getScratch(data.Len())
		defer putScratch(buf)
		data.CopyTo(*buf)
		b = *buf
	}
	if decode(b, m, num) {
		return nil
	}
	return proto.Unmarshal(b, m)
}
