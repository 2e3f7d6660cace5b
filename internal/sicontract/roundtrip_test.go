package sicontract

import (
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// wantMessageTypes is the number of message types the SI spec declares
// (top-level and nested; synthetic map entry types are not counted).
const wantMessageTypes = 30

// messageTypes lists every message declared in si.proto, nested ones
// included and map entries excluded.
func messageTypes(t *testing.T) []protoreflect.MessageType {
	t.Helper()
	var out []protoreflect.MessageType
	var walk func(protoreflect.MessageDescriptors)
	walk = func(mds protoreflect.MessageDescriptors) {
		for i := 0; i < mds.Len(); i++ {
			md := mds.Get(i)
			if md.IsMapEntry() {
				continue
			}
			mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
			if err != nil {
				t.Fatalf("message %s is not registered: %v", md.FullName(), err)
			}
			out = append(out, mt)
			walk(md.Messages())
		}
	}
	walk(si.File_yunikorn_scheduler_interface_si_proto.Messages())
	return out
}

// filler produces distinct non-zero values so that a field moved onto the
// wrong number or type shows up as a difference.
type filler struct{ n int64 }

func (f *filler) next() int64 { f.n++; return f.n }

// fill sets every field of m to a non-zero value: scalars, enums (a non-zero
// value), messages (recursively), repeated fields (two elements) and maps
// (two entries). Of a real oneof only the first member is set. depth guards
// against recursive message types.
func (f *filler) fill(m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() && od.Fields().Get(0) != fd {
			continue
		}
		switch {
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			for j := 0; j < 2; j++ {
				k := f.scalar(fd.MapKey()).MapKey()
				if fd.MapValue().Kind() == protoreflect.MessageKind {
					f.fill(mp.Mutable(k).Message(), depth+1)
				} else {
					mp.Set(k, f.scalar(fd.MapValue()))
				}
			}
		case fd.IsList():
			l := m.Mutable(fd).List()
			for j := 0; j < 2; j++ {
				if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
					el := l.NewElement()
					f.fill(el.Message(), depth+1)
					l.Append(el)
				} else {
					l.Append(f.scalar(fd))
				}
			}
		case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
			if depth < 4 {
				f.fill(m.Mutable(fd).Message(), depth+1)
			}
		default:
			m.Set(fd, f.scalar(fd))
		}
	}
}

// scalar returns a non-zero value of fd's scalar or enum kind.
func (f *filler) scalar(fd protoreflect.FieldDescriptor) protoreflect.Value {
	n := f.next()
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		if vals.Len() < 2 {
			panic(fmt.Sprintf("filler: enum %s has no non-zero value", fd.Enum().FullName()))
		}
		// Cycle through the non-zero values (index 0 is the zero value in proto3).
		return protoreflect.ValueOfEnum(vals.Get(1 + int(n)%(vals.Len()-1)).Number())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(-n))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(-n << 33)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(n))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(n) << 33)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(n) + 0.5)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(n) + 0.25)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(fmt.Sprintf("%s-%d", fd.Name(), n))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte{byte(n), 0xff})
	}
	panic(fmt.Sprintf("filler: unhandled kind %v of field %s", fd.Kind(), fd.FullName()))
}

// unsetFields names the fields of m (recursively) that hold no value.
func unsetFields(m protoreflect.Message) []string {
	var out []string
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if m.WhichOneof(od) == nil {
				out = append(out, string(od.FullName()))
			}
			continue
		}
		if !m.Has(fd) {
			out = append(out, string(fd.FullName()))
			continue
		}
		if fd.Kind() == protoreflect.MessageKind && !fd.IsList() && !fd.IsMap() {
			out = append(out, unsetFields(m.Get(fd).Message())...)
		}
	}
	return out
}

func TestMessageTypeCount(t *testing.T) {
	if got := len(messageTypes(t)); got != wantMessageTypes {
		t.Fatalf("si.proto declares %d message types, want %d", got, wantMessageTypes)
	}
}

func TestRoundTripEveryMessage(t *testing.T) {
	for _, mt := range messageTypes(t) {
		name := string(mt.Descriptor().FullName())
		t.Run(name, func(t *testing.T) {
			f := &filler{}
			in := mt.New()
			f.fill(in, 0)
			if unset := unsetFields(in); len(unset) > 0 {
				t.Fatalf("filler left fields unset: %v", unset)
			}
			wire, err := proto.Marshal(in.Interface())
			if err != nil {
				t.Fatalf("marshal %s: %v", name, err)
			}
			if in.Descriptor().Fields().Len() > 0 && len(wire) == 0 {
				t.Fatalf("%s with every field set marshalled to zero bytes", name)
			}
			out := mt.New().Interface()
			if err := proto.Unmarshal(wire, out); err != nil {
				t.Fatalf("unmarshal %s: %v", name, err)
			}
			if !proto.Equal(in.Interface(), out) {
				t.Fatalf("%s changed in the round trip:\n in: %v\nout: %v", name, in, out)
			}
			if u := out.ProtoReflect().GetUnknown(); len(u) > 0 {
				t.Fatalf("%s: %d bytes came back as unknown fields", name, len(u))
			}
			// The decoded message re-encodes to exactly the same bytes.
			opts := proto.MarshalOptions{Deterministic: true}
			a, errA := opts.Marshal(in.Interface())
			b, errB := opts.Marshal(out)
			if errA != nil || errB != nil {
				t.Fatalf("deterministic marshal of %s: %v / %v", name, errA, errB)
			}
			if string(a) != string(b) {
				t.Fatalf("%s: deterministic encodings differ after the round trip", name)
			}
		})
	}
}

// TestRoundTripDetectsDifference guards the round-trip test itself: a
// filled message differs from one with a single field changed.
func TestRoundTripDetectsDifference(t *testing.T) {
	a := &si.Allocation{}
	(&filler{}).fill(a.ProtoReflect(), 0)
	b := proto.Clone(a).(*si.Allocation)
	b.Priority++
	if proto.Equal(a, b) {
		t.Fatal("proto.Equal does not see a changed priority")
	}
	if a.ResourcePerAlloc == nil || len(a.ResourcePerAlloc.Resources) != 2 || a.PreemptionPolicy == nil ||
		!a.PreemptionPolicy.AllowPreemptOther || len(a.AllocationTags) != 2 {
		t.Fatalf("filler did not populate nested messages and maps: %v", a)
	}
}
