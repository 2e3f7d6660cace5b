package grpcserver

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/paddock-sched/paddock/internal/protocodec"
)

// split cuts a response larger than limit bytes into several, halving
// every repeated field until each part fits (the SI responses are lists
// of independent items), and returns the parts encoded. A message whose
// lists cannot be halved further is returned as it is; the transport then
// rejects it. A message that does not encode is returned without its
// bytes: the codec says why as it is sent.
func split(m proto.Message, limit int) []protocodec.Encoded {
	b, err := protocodec.Append(nil, m)
	if err != nil {
		return []protocodec.Encoded{{Message: m}}
	}
	if len(b) <= limit {
		return []protocodec.Encoded{{Message: m, Bytes: b}}
	}
	src := m.ProtoReflect()
	pa, pb := src.New(), src.New()
	halved := false
	src.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if !fd.IsList() || v.List().Len() < 2 {
			pa.Set(fd, v)
			return true
		}
		l, half := v.List(), v.List().Len()/2
		la, lb := pa.Mutable(fd).List(), pb.Mutable(fd).List()
		for i := range l.Len() {
			if i < half {
				la.Append(l.Get(i))
			} else {
				lb.Append(l.Get(i))
			}
		}
		halved = true
		return true
	})
	if !halved {
		return []protocodec.Encoded{{Message: m, Bytes: b}}
	}
	return append(split(pa.Interface(), limit), split(pb.Interface(), limit)...)
}
