package protocodec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

func TestFieldNumbers(t *testing.T) {
	for _, c := range []struct {
		m     proto.Message
		field protoreflect.Name
		num   protowire.Number
	}{
		{&si.AllocationRequest{}, "allocations", requestAllocations},
		{&si.AllocationRequest{}, "rmID", requestRmID},
		{&si.AllocationResponse{}, "new", responseNew},
		{&si.Allocation{}, "resourcePerAlloc", allocResources},
		{&si.Allocation{}, "allocationTags", allocTags},
		{&si.Allocation{}, "allocationKey", allocKey},
		{&si.Allocation{}, "priority", allocPriority},
		{&si.Allocation{}, "nodeID", allocNode},
		{&si.Allocation{}, "applicationID", allocApp},
		{&si.Allocation{}, "partitionName", allocPartition},
		{&si.Allocation{}, "taskGroupName", allocTaskGroup},
		{&si.Allocation{}, "placeholder", allocPlaceholder},
		{&si.Allocation{}, "originator", allocOriginator},
		{&si.Allocation{}, "preemptionPolicy", allocPolicy},
		{&si.PreemptionPolicy{}, "allowPreemptSelf", policySelf},
		{&si.PreemptionPolicy{}, "allowPreemptOther", policyOther},
		{&si.Resource{}, "resources", 1}, // appendResource's
		{&si.Quantity{}, "value", 1},
	} {
		fd := c.m.ProtoReflect().Descriptor().Fields().ByName(c.field)
		if fd == nil || fd.Number() != c.num {
			t.Errorf("%T.%s: field %v, the codec uses %d", c.m, c.field, fd, c.num)
		}
	}
}

// full returns an allocation with every field set, each to a value that
// differs from its zero, as the SI's descriptor lists them: a field the
// SI gains is set too.
func full(t testing.TB, i int) *si.Allocation {
	t.Helper()
	a := &si.Allocation{}
	m := a.ProtoReflect()
	fields := m.Descriptor().Fields()
	for j := range fields.Len() {
		fd := fields.Get(j)
		switch {
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				v := mp.NewValue()
				q := v.Message()
				q.Set(q.Descriptor().Fields().ByName("value"), protoreflect.ValueOfInt64(int64(i+1)))
				mp.Set(protoreflect.ValueOfString("k").MapKey(), v)
			} else {
				mp.Set(protoreflect.ValueOfString(fmt.Sprint("tag", i)).MapKey(), protoreflect.ValueOfString("v"))
			}
		case fd.Kind() == protoreflect.MessageKind:
			sub := m.Mutable(fd).Message()
			sf := sub.Descriptor().Fields()
			for k := range sf.Len() {
				if sf.Get(k).Kind() == protoreflect.BoolKind {
					sub.Set(sf.Get(k), protoreflect.ValueOfBool(true))
				}
			}
			if fd.Name() == "resourcePerAlloc" {
				sub.Mutable(sf.ByName("resources")).Map().Set(protoreflect.ValueOfString("vcore").MapKey(),
					protoreflect.ValueOfMessage((&si.Quantity{Value: int64(i%3 + 1)}).ProtoReflect()))
			}
		case fd.Kind() == protoreflect.StringKind:
			m.Set(fd, protoreflect.ValueOfString(fmt.Sprint(fd.Name(), i)))
		case fd.Kind() == protoreflect.BoolKind:
			m.Set(fd, protoreflect.ValueOfBool(true))
		case fd.Kind() == protoreflect.Int32Kind:
			m.Set(fd, protoreflect.ValueOfInt32(int32(i+1)))
		case fd.Kind() == protoreflect.Int64Kind:
			m.Set(fd, protoreflect.ValueOfInt64(int64(i+1)))
		case fd.Kind() == protoreflect.EnumKind:
			m.Set(fd, protoreflect.ValueOfEnum(1))
		default:
			t.Fatalf("Allocation.%s: a field of kind %v the test does not set", fd.Name(), fd.Kind())
		}
	}
	for j := range fields.Len() {
		if !m.Has(fields.Get(j)) {
			t.Fatalf("Allocation.%s not set", fields.Get(j).Name())
		}
	}
	return a
}

// appendResource encodes any resource message as proto.Marshal does, in
// as many bytes, or leaves it to proto.Marshal.
func TestAppendResource(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	values := []int64{0, 1, -1, 127, 128, 1 << 40, math.MaxInt64, math.MinInt64}
	for i := range 2000 {
		r := &si.Resource{}
		if n := rnd.IntN(12); n > 0 || i%2 == 0 {
			r.Resources = map[string]*si.Quantity{}
			for range n {
				name := []string{"", "vcore", "memory", "nvidia.com/gpu", strings.Repeat("x", 200), fmt.Sprint("r", rnd.IntN(20))}[rnd.IntN(6)]
				r.Resources[name] = &si.Quantity{Value: values[rnd.IntN(len(values))]}
			}
		}
		b, ok := appendResource([]byte("prefix"), r)
		if !ok {
			t.Fatalf("%v: not encoded", r)
		}
		back := &si.Resource{}
		if string(b[:6]) != "prefix" || proto.Unmarshal(b[6:], back) != nil || !proto.Equal(back, r) || len(b)-6 != proto.Size(r) {
			t.Fatalf("%v: encoded as %v in %d bytes, proto.Size %d", r, back, len(b)-6, proto.Size(r))
		}
		again, _ := appendResource(nil, r)
		if string(again) != string(b[6:]) {
			t.Fatalf("%v: encoded differently twice", r)
		}
	}
	unknown := protowire.AppendVarint(protowire.AppendTag(nil, 9, protowire.VarintType), 1)
	withUnknown := &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: 1}}}
	withUnknown.ProtoReflect().SetUnknown(unknown)
	quantityUnknown := &si.Quantity{Value: 2}
	quantityUnknown.ProtoReflect().SetUnknown(unknown)
	for _, r := range []*si.Resource{
		withUnknown,
		{Resources: map[string]*si.Quantity{"vcore": nil}},
		{Resources: map[string]*si.Quantity{"vcore": quantityUnknown}},
	} {
		if _, ok := appendResource(nil, r); ok {
			t.Fatalf("%v: encoded, not left to proto.Marshal", r)
		}
		var e resourceEncodings
		b, err := e.of(r)
		back := &si.Resource{}
		if err != nil || proto.Unmarshal(b, back) != nil || !proto.Equal(back, r) {
			t.Fatalf("%v: through proto.Marshal as %v (%v)", r, back, err)
		}
	}
}

// others copies every field of an allocation request and response but its
// allocation list: it fails when the SI's messages gain a field others
// leaves out.
func TestOthersCopiesEveryField(t *testing.T) {
	unknown := protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 7)
	for _, m := range []proto.Message{&si.AllocationRequest{}, &si.AllocationResponse{}} {
		r := m.ProtoReflect()
		fields := r.Descriptor().Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			switch {
			case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
				r.Mutable(fd).List().AppendMutable()
			case fd.Kind() == protoreflect.MessageKind:
				r.Mutable(fd)
			case fd.Kind() == protoreflect.StringKind:
				r.Set(fd, protoreflect.ValueOfString(string(fd.Name())))
			default:
				t.Fatalf("%T.%s: a field of kind %v the test does not set", m, fd.Name(), fd.Kind())
			}
		}
		r.SetUnknown(unknown)
		_, num, _ := list(m)
		want := proto.Clone(m)
		want.ProtoReflect().Clear(want.ProtoReflect().Descriptor().Fields().ByNumber(num))
		if got := others(m); !proto.Equal(got, want) {
			t.Fatalf("others copied %v of %v", got, want)
		}
	}
}

// The codec writes and reads every field of an allocation itself: it
// fails when the SI's Allocation gains a field appendAllocation leaves out
// or allocDecoder does not know (which would leave the whole message to
// protobuf-go).
func TestAllocationEveryField(t *testing.T) {
	for i := range 3 {
		a := full(t, i)
		r, _ := appendResource(nil, a.ResourcePerAlloc)
		b, ok := appendAllocation(nil, a, r)
		if !ok {
			t.Fatalf("appendAllocation refused %v", a)
		}
		// one tag and one resource type: the bytes are proto.Marshal's
		want, _ := proto.MarshalOptions{Deterministic: true}.Marshal(a)
		if !slices.Equal(b, want) {
			t.Fatalf("appendAllocation\n% x\nproto.Marshal\n% x", b, want)
		}
		var d allocDecoder
		got, ok := d.allocation(want)
		if !ok || !proto.Equal(got, a) {
			t.Fatalf("allocDecoder: %v (%v), want %v", got, ok, a)
		}
	}
}

// Every field of every allocation, unknown fields included, goes through
// both ways, in the size proto.Marshal gives; decoded allocations share
// a resource message exactly when theirs were encoded alike.
func TestListsRoundTrip(t *testing.T) {
	unknown := protowire.AppendString(protowire.AppendTag(nil, 99, protowire.BytesType), "from a newer SI")
	for _, n := range []int{1, 2, 3, 40} {
		var allocs []*si.Allocation
		for i := range n {
			a := full(t, i)
			switch i % 4 {
			case 1:
				a.ResourcePerAlloc = nil // none
			case 2:
				a.ResourcePerAlloc = &si.Resource{} // present, empty
			case 3:
				a.ProtoReflect().SetUnknown(unknown)
			}
			allocs = append(allocs, a)
		}
		req := &si.AllocationRequest{RmID: "rm1", Allocations: allocs, Releases: &si.AllocationReleasesRequest{
			AllocationsToRelease: []*si.AllocationRelease{{AllocationKey: "gone"}}}}
		req.ProtoReflect().SetUnknown(unknown)
		resp := &si.AllocationResponse{New: allocs, RejectedAllocations: []*si.RejectedAllocation{{AllocationKey: "no"}}}
		for _, m := range []proto.Message{req, resp} {
			b, err := Append(nil, m)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) != proto.Size(m) {
				t.Fatalf("%T of %d: %d bytes, proto.Size %d", m, n, len(b), proto.Size(m))
			}
			plain := m.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(b, plain); err != nil || !proto.Equal(plain, m) {
				t.Fatalf("%T of %d: proto.Unmarshal gives %v (%v)", m, n, plain, err)
			}
			wire, _ := proto.Marshal(m)
			back := m.ProtoReflect().New().Interface()
			if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, back); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(back, m) {
				t.Fatalf("%T of %d: decoded %v", m, n, back)
			}
			lp, _, _ := list(back)
			got := *lp
			for i, a := range got {
				if (a.ResourcePerAlloc == nil) != (allocs[i].ResourcePerAlloc == nil) {
					t.Fatalf("allocation %d: resources %v, sent %v", i, a.ResourcePerAlloc, allocs[i].ResourcePerAlloc)
				}
				for j, b := range got[:i] {
					alike := a.ResourcePerAlloc != nil && b.ResourcePerAlloc != nil && proto.Equal(a.ResourcePerAlloc, b.ResourcePerAlloc)
					if shared := a.ResourcePerAlloc != nil && a.ResourcePerAlloc == b.ResourcePerAlloc; shared != alike {
						t.Fatalf("allocations %d and %d: resources alike %v, shared %v", j, i, alike, shared)
					}
				}
			}
		}
	}
}

// Allocations of any size: their lengths take one to three bytes.
func TestLongAllocations(t *testing.T) {
	for _, size := range []int{100, 127, 128, 200, 16383, 16384, 70000} {
		a := &si.Allocation{AllocationKey: strings.Repeat("k", size), ResourcePerAlloc: &si.Resource{}}
		m := &si.AllocationResponse{New: []*si.Allocation{a, {AllocationKey: "short", ResourcePerAlloc: a.ResourcePerAlloc}}}
		wire, _ := proto.Marshal(m)
		back := &si.AllocationResponse{}
		if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, back); err != nil || !proto.Equal(back, m) {
			t.Fatalf("key of %d bytes: %v", size, err)
		}
	}
}

// An allocation whose resources come in two parts has them merged, as
// protobuf does; malformed input fails as proto.Unmarshal fails.
func TestDecodeAsProto(t *testing.T) {
	part := func(name string) []byte {
		b, _ := proto.Marshal(&si.Resource{Resources: map[string]*si.Quantity{name: {Value: 1}}})
		return b
	}
	var alloc []byte
	alloc = protowire.AppendString(protowire.AppendTag(alloc, 1, protowire.BytesType), "a1")
	alloc = protowire.AppendBytes(protowire.AppendTag(alloc, allocResources, protowire.BytesType), part("vcore"))
	alloc = protowire.AppendBytes(protowire.AppendTag(alloc, allocResources, protowire.BytesType), part("memory"))
	wire := protowire.AppendBytes(protowire.AppendTag(nil, responseNew, protowire.BytesType), alloc)
	for _, data := range [][]byte{wire, wire[:len(wire)-3], {0xff}, append(append([]byte{}, wire...), 0x0a, 0x05, 0x2a)} {
		want, got := &si.AllocationResponse{}, &si.AllocationResponse{}
		werr := proto.Unmarshal(data, want)
		gerr := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(data)}, got)
		if (werr == nil) != (gerr == nil) || werr == nil && !proto.Equal(got, want) {
			t.Fatalf("% x: codec %v (%v), proto %v (%v)", data, got, gerr, want, werr)
		}
	}
	merged := &si.AllocationResponse{}
	if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, merged); err != nil || len(merged.New[0].ResourcePerAlloc.Resources) != 2 {
		t.Fatalf("resources in two parts: %v (%v)", merged, err)
	}
}

// FuzzDecode checks that the codec decodes any input as proto.Unmarshal
// does: the same message, or an error for both.
func FuzzDecode(f *testing.F) {
	policy := full(f, 2)
	policy.PreemptionPolicy.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 7, protowire.VarintType), 1))
	odd := full(f, 3)
	odd.ProtoReflect().SetUnknown(protowire.AppendString(protowire.AppendTag(nil, 99, protowire.BytesType), "newer"))
	every := []*si.Allocation{full(f, 0), full(f, 1), policy, odd}
	for i, m := range []proto.Message{response(3), &si.AllocationRequest{RmID: "rm", Allocations: response(5).New},
		&si.AllocationResponse{New: every}, &si.AllocationRequest{Allocations: every}} {
		b, _ := proto.Marshal(m)
		f.Add(b, i%2 == 1)
	}
	f.Fuzz(func(t *testing.T, data []byte, request bool) {
		var want, got proto.Message = &si.AllocationResponse{}, &si.AllocationResponse{}
		if request {
			want, got = &si.AllocationRequest{}, &si.AllocationRequest{}
		}
		werr := proto.Unmarshal(data, want)
		gerr := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(data)}, got)
		if (werr == nil) != (gerr == nil) || werr == nil && !proto.Equal(got, want) {
			t.Fatalf("% x: codec %v (%v), proto %v (%v)", data, got, gerr, want, werr)
		}
	})
}

// BenchmarkAppendResource encodes a resource message of two types by
// hand (appendResource) and by protobuf-go.
func BenchmarkAppendResource(b *testing.B) {
	r := &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: 1000}, "memory": {Value: 1 << 30}}}
	var buf []byte
	b.Run("by=hand", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			buf, _ = appendResource(buf[:0], r)
		}
	})
	b.Run("by=protobuf", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			buf, _ = proto.MarshalOptions{}.MarshalAppend(buf[:0], r)
		}
	})
}

// Tags of every kind go through both ways as protobuf-go has them, in as
// many bytes; tags that are not valid UTF-8 fail to encode and to decode
// as they do with protobuf-go.
func TestTags(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	strs := []string{"", "default", "kubernetes.io/meta/namespace", "ünïcödé ✓", strings.Repeat("long", 50), "pod-1", "pod-2"}
	for i := range 500 {
		var allocs []*si.Allocation
		for j := range 1 + rnd.IntN(5) {
			a := &si.Allocation{AllocationKey: fmt.Sprint("a", j), ResourcePerAlloc: &si.Resource{}}
			if n := rnd.IntN(9); n > 0 || i%3 == 0 {
				a.AllocationTags = map[string]string{}
				for range n {
					a.AllocationTags[strs[rnd.IntN(len(strs))]] = strs[rnd.IntN(len(strs))]
				}
			}
			allocs = append(allocs, a)
		}
		m := &si.AllocationRequest{RmID: "rm1", Allocations: allocs}
		b, err := Append(nil, m)
		if err != nil || len(b) != proto.Size(m) {
			t.Fatalf("%v: %d bytes, proto.Size %d (%v)", m, len(b), proto.Size(m), err)
		}
		back := &si.AllocationRequest{}
		if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, back); err != nil || !proto.Equal(back, m) {
			t.Fatalf("%v: decoded %v (%v)", m, back, err)
		}
	}
	bad := &si.AllocationRequest{Allocations: []*si.Allocation{{AllocationKey: "a"}, {AllocationKey: "b", AllocationTags: map[string]string{"k": "\xff"}}}}
	if _, err := proto.Marshal(bad); err == nil {
		t.Fatal("protobuf-go encodes a tag that is not UTF-8: the test's premise is gone")
	}
	if _, err := Append(nil, bad); err == nil {
		t.Fatal("a tag that is not UTF-8 was encoded")
	}
	// the same on the wire, written by hand: refused on decoding
	entry := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "k")
	entry = protowire.AppendString(protowire.AppendTag(entry, 2, protowire.BytesType), "\xff")
	alloc := protowire.AppendBytes(protowire.AppendTag(nil, allocTags, protowire.BytesType), entry)
	wire := protowire.AppendBytes(protowire.AppendTag(nil, requestAllocations, protowire.BytesType), alloc)
	wire = append(wire, wire...)
	if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, &si.AllocationRequest{}); err == nil {
		t.Fatal("a tag that is not UTF-8 was decoded")
	}
}

// BenchmarkTags encodes and decodes a request of 100 asks with six tags
// each, as the Kubernetes shim tags pods, with grpc-go's codec and this
// one.
func BenchmarkTags(b *testing.B) {
	req := &si.AllocationRequest{RmID: "rm1"}
	res := &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: 1000}, "memory": {Value: 1 << 30}}}
	for i := range 100 {
		req.Allocations = append(req.Allocations, &si.Allocation{AllocationKey: fmt.Sprint("ask-", i), ApplicationID: "app-1", ResourcePerAlloc: res,
			AllocationTags: map[string]string{"kubernetes.io/meta/namespace": "default", "kubernetes.io/meta/podName": fmt.Sprint("pod-", i),
				"creationTime": "1764201600", "kubernetes.io/label/app": "app-1", "kubernetes.io/label/team": "batch", "kubernetes.io/label/tier": "backend"}})
	}
	wire, _ := proto.Marshal(req)
	for _, c := range []encoding.CodecV2{encoding.GetCodecV2("proto"), Codec{}} {
		name := "grpc"
		if _, ok := c.(Codec); ok {
			name = "paddock"
		}
		b.Run("codec="+name+"/encode", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				d, err := c.Marshal(req)
				if err != nil {
					b.Fatal(err)
				}
				d.Free()
			}
		})
		b.Run("codec="+name+"/decode", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				var m si.AllocationRequest
				if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A decoded message keeps nothing of the codec's scratch buffers: one
// decoded from several buffers (a message over several frames) is intact
// after others have reused them.
func TestDecodedOwnsItsBytes(t *testing.T) {
	first := response(50)
	wire, _ := proto.Marshal(first)
	var parts mem.BufferSlice
	for b := wire; len(b) > 0; b = b[min(len(b), 100):] {
		parts = append(parts, mem.SliceBuffer(b[:min(len(b), 100)]))
	}
	got := &si.AllocationResponse{}
	if err := (Codec{}).Unmarshal(parts, got); err != nil || !proto.Equal(got, first) {
		t.Fatalf("decoded from %d buffers: %v", len(parts), err)
	}
	for i := range 20 {
		other, _ := proto.Marshal(&si.AllocationResponse{New: []*si.Allocation{{AllocationKey: strings.Repeat(fmt.Sprint(i), 3000),
			AllocationTags: map[string]string{"k": strings.Repeat("v", 2000)}, ResourcePerAlloc: &si.Resource{}}, {AllocationKey: "x"}}})
		if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(other[:len(other)/2]), mem.SliceBuffer(other[len(other)/2:])}, &si.AllocationResponse{}); err != nil {
			t.Fatal(err)
		}
	}
	if !proto.Equal(got, first) {
		t.Fatal("a decoded message changed when the codec's buffers were reused")
	}
}

// Resources whose map entries come in different orders, as protobuf-go
// writes them, are decoded once: the allocations share one message.
// Entries of one name in different orders mean different resources (the
// last one counts) and are not shared.
func TestResourceEntriesInAnyOrder(t *testing.T) {
	entry := func(name string, v int64) []byte {
		q := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), uint64(v))
		e := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), name)
		e = protowire.AppendBytes(protowire.AppendTag(e, 2, protowire.BytesType), q)
		return protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), e)
	}
	cat := func(parts ...[]byte) []byte { return slices.Concat(parts...) }
	vcore, memory, gpu := entry("vcore", 1000), entry("memory", 1<<30), entry("nvidia.com/gpu", 1)
	encodings := [][]byte{
		cat(vcore, memory, gpu), cat(gpu, vcore, memory), cat(memory, gpu, vcore), cat(memory, vcore, gpu),
		cat(entry("vcore", 1), entry("vcore", 2)), cat(entry("vcore", 2), entry("vcore", 1)), // last wins: 2, then 1
	}
	var wire []byte
	for i := range 3 {
		for j, r := range encodings {
			a := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), fmt.Sprint("a", i, j))
			a = protowire.AppendBytes(protowire.AppendTag(a, allocResources, protowire.BytesType), r)
			wire = protowire.AppendBytes(protowire.AppendTag(wire, responseNew, protowire.BytesType), a)
		}
	}
	want := &si.AllocationResponse{}
	if err := proto.Unmarshal(wire, want); err != nil {
		t.Fatal(err)
	}
	got := &si.AllocationResponse{}
	if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, got); err != nil || !proto.Equal(got, want) {
		t.Fatalf("decoded %v (%v), proto %v", got, err, want)
	}
	first := got.New[0].ResourcePerAlloc
	for i, a := range got.New {
		switch j := i % len(encodings); {
		case j < 4 && a.ResourcePerAlloc != first:
			t.Fatalf("allocation %d: its resources, in another order, are another message", i)
		case j >= 4 && a.ResourcePerAlloc != got.New[j].ResourcePerAlloc:
			t.Fatalf("allocation %d: not sharing the resources encoded alike", i)
		}
	}
	if got.New[4].ResourcePerAlloc == got.New[5].ResourcePerAlloc {
		t.Fatal("the same name in two orders (different resources) shares one message")
	}
}

// Allocations of one message with the same preemption flags share one
// policy message; a policy with fields of a newer SI keeps them, in one
// of its own.
func TestPoliciesShared(t *testing.T) {
	newer := &si.PreemptionPolicy{AllowPreemptSelf: true}
	newer.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 7, protowire.VarintType), 1))
	sent := []*si.PreemptionPolicy{{AllowPreemptSelf: true}, {}, {AllowPreemptSelf: true}, newer, nil, {}, {AllowPreemptOther: true}}
	m := &si.AllocationRequest{}
	for i, p := range sent {
		m.Allocations = append(m.Allocations, &si.Allocation{AllocationKey: fmt.Sprint("a", i), PreemptionPolicy: p})
	}
	wire, _ := proto.Marshal(m)
	back := &si.AllocationRequest{}
	if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, back); err != nil || !proto.Equal(back, m) {
		t.Fatalf("decoded %v (%v)", back, err)
	}
	got := back.Allocations
	if got[0].PreemptionPolicy != got[2].PreemptionPolicy || got[1].PreemptionPolicy != got[5].PreemptionPolicy {
		t.Fatal("allocations with the same policy do not share it")
	}
	if got[0].PreemptionPolicy == got[1].PreemptionPolicy || got[0].PreemptionPolicy == got[6].PreemptionPolicy ||
		got[3].PreemptionPolicy == got[0].PreemptionPolicy || got[4].PreemptionPolicy != nil {
		t.Fatal("allocations with different policies share one")
	}
}

// A string that is not valid UTF-8 fails to encode, as with proto.Marshal.
func TestInvalidStrings(t *testing.T) {
	for _, a := range []*si.Allocation{{AllocationKey: "k\xff"}, {ApplicationID: "\xc3"}, {NodeID: "n\xfe"},
		{PartitionName: "\xff"}, {TaskGroupName: "\x80"}, {AllocationTags: map[string]string{"k": "\xff"}},
		{ResourcePerAlloc: &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: 1}, "gpu\xff": {Value: 1}}}}} {
		m := &si.AllocationResponse{New: []*si.Allocation{{AllocationKey: "fine"}, a}}
		_, werr := proto.Marshal(m)
		if _, err := Append(nil, m); err == nil || werr == nil {
			t.Fatalf("%v: Append %v, proto.Marshal %v", a, err, werr)
		}
	}
}

// A response with nothing but its allocations, and a request with nothing
// but its RM's ID and asks, have their other fields written by hand: the
// bytes are proto.Marshal's; an RM ID that is not valid UTF-8 fails to
// encode, as with proto.Marshal.
func TestOthersByHand(t *testing.T) {
	allocs := []*si.Allocation{full(t, 0), full(t, 1)}
	for _, m := range []proto.Message{&si.AllocationResponse{New: allocs}, &si.AllocationRequest{RmID: "rm-1", Allocations: allocs},
		&si.AllocationRequest{Allocations: allocs}, &si.AllocationResponse{New: allocs[:1]}} {
		got, err := Append(nil, m)
		want, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%v: Append (%v)\n% x\nproto.Marshal\n% x", m, err, got, want)
		}
	}
	bad := &si.AllocationRequest{RmID: "rm\xff", Allocations: allocs}
	if _, err := Append(nil, bad); err == nil {
		t.Fatal("an RM ID that is not UTF-8 was encoded")
	}
}
