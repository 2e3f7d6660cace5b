// Package protocodec is the gRPC codec of Paddock's server: grpc-go's own
// protocol buffers codec, plus messages whose size the sender computed
// just before sending (Sized). grpc-go's codec sizes every message before
// marshaling it; the server has already sized each response to split it
// at the size limit, so sizing it again was a second walk over every
// allocation, resource map and tag of it.
package protocodec

import (
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// Name is the codec's name, the content subtype on the wire: "proto", as
// grpc-go's own codec, so peers see no difference.
const Name = "proto"

// Sized is a message with the size proto.Size gave it, unchanged since:
// the sizes of the message and of the messages in it are cached in them,
// and the codec marshals it with those sizes. It is a proto.Message itself
// (the one it holds), so a server without this codec still sends it whole.
type Sized struct {
	proto.Message
	Size int
}

// Codec marshals a Sized without sizing it again and everything else with
// grpc-go's own codec.
type Codec struct{}

var _ encoding.CodecV2 = Codec{}

// Name returns "proto".
func (Codec) Name() string { return Name }

// Marshal encodes v: a Sized into one buffer (from grpc-go's buffer pool
// when it is large, as grpc-go's codec does), anything else through
// grpc-go's codec.
func (Codec) Marshal(v any) (mem.BufferSlice, error) {
	s, ok := v.(*Sized)
	if !ok {
		return encoding.GetCodecV2(Name).Marshal(v)
	}
	opts := proto.MarshalOptions{UseCachedSize: true}
	if mem.IsBelowBufferPoolingThreshold(s.Size) {
		b, err := opts.MarshalAppend(make([]byte, 0, s.Size), s.Message)
		if err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	pool := mem.DefaultBufferPool()
	buf := pool.Get(s.Size)
	b, err := opts.MarshalAppend((*buf)[:0], s.Message)
	if err != nil {
		pool.Put(buf)
		return nil, err
	}
	*buf = b
	return mem.BufferSlice{mem.NewBuffer(buf, pool)}, nil
}

// Unmarshal decodes data into v as grpc-go's codec does.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	return encoding.GetCodecV2(Name).Unmarshal(data, v)
}
