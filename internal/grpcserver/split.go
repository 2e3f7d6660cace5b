package grpcserver

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/paddock-sched/paddock/internal/protocodec"
)

// split cuts a response larger than limit bytes into several, halving
// every repeated field until each part fits (the SI responses are lists
// of independent items), and returns the parts with their sizes. A message
// whose lists cannot be halved further is returned as it is; the transport
// then rejects it.
func split(m proto.Message, limit int) []protocodec.Sized {
	size := proto.Size(m)
	if size <= limit {
		return []protocodec.Sized{{Message: m, Size: size}}
	}
	src := m.ProtoReflect()
	a, b := src.New(), src.New()
	halved := false
	src.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if !fd.IsList() || v.List().Len() < 2 {
			a.Set(fd, v)
			return true
		}
		l, half := v.List(), v.List().Len()/2
		la, lb := a.Mutable(fd).List(), b.Mutable(fd).List()
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
		return []protocodec.Sized{{Message: m, Size: size}}
	}
	return append(split(a.Interface(), limit), split(b.Interface(), limit)...)
}
