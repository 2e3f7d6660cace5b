package protocodec

import (
	"slices"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// The allocation lists of the SI: an AllocationRequest's asks and an
// AllocationResponse's new allocations. Each allocation carries its
// resources as a map message (si.Resource), and protobuf-go builds and
// walks every map anew, through reflection: with two resource types,
// encoding an allocation cost about 1.8 µs and decoding one 2.4 µs and
// 11 heap objects, against 0.24 and 0.44 µs without the map (1,000 asks
// of 100 applications, this machine). The codec therefore encodes the
// resource messages of a list itself (appendResource: the same bytes
// but for the order of the map's entries, in about 200 ns),
// and decodes each distinct encoding of a list once: most allocations of
// a list have the same resources (the pods of one deployment, the tasks
// of one job), and the allocations of a decoded list whose resources were
// encoded alike share one si.Resource, which its receiver only reads.
// The allocations' tags, the other map, are encoded and decoded by hand
// too (tags.go), and so are the allocations' other fields (alloc.go). The
// wire format is protobuf's; only the order of the fields differs (the
// list comes last), which every decoder accepts.

// Field numbers of the SI messages the codec handles itself, as the
// generated code declares them (checked against the descriptors by the
// tests).
const (
	requestAllocations protowire.Number = 4 // AllocationRequest.allocations
	requestRmID        protowire.Number = 3 // AllocationRequest.rmID
	responseNew        protowire.Number = 1 // AllocationResponse.new
	allocResources     protowire.Number = 5 // Allocation.resourcePerAlloc
)

// list returns the allocation list of m (the field itself, which decode
// sets) and its field number, or false when m is not a message with one.
func list(m any) (*[]*si.Allocation, protowire.Number, bool) {
	switch x := m.(type) {
	case *si.AllocationRequest:
		return &x.Allocations, requestAllocations, true
	case *si.AllocationResponse:
		return &x.New, responseNew, true
	}
	return nil, 0, false
}

// Append appends the wire encoding of m to b: proto.Marshal's, with the
// allocations of an AllocationRequest or AllocationResponse encoded by
// appendAllocation (their resources by appendResource).
func Append(b []byte, m proto.Message) ([]byte, error) {
	lp, num, ok := list(m)
	if !ok || len(*lp) == 0 {
		return proto.MarshalOptions{}.MarshalAppend(b, m)
	}
	allocs := *lp
	for _, a := range allocs {
		if a == nil { // as proto.Marshal has it
			return proto.MarshalOptions{}.MarshalAppend(b, m)
		}
	}
	// the message's other fields first, as proto.Marshal encodes them
	start := len(b)
	b, err := appendOthers(b, m)
	if err != nil {
		return b, err
	}
	// an allocation's encoding and its resources' are written in scratch
	// buffers: a response of one allocation (one per allocation to an RM
	// that sees each) would otherwise grow both from nothing
	bp, rp := getScratch(0), getScratch(0)
	body, enc := *bp, resourceEncodings{scratch: *rp}
	defer func() {
		*bp, *rp = body[:0], enc.scratch[:0]
		putScratch(bp)
		putScratch(rp)
	}()
	for i, a := range allocs {
		var r []byte
		if a.ResourcePerAlloc != nil {
			if r, err = enc.of(a.ResourcePerAlloc); err != nil {
				return b, err
			}
		}
		var ok bool
		if body, ok = appendAllocation(body[:0], a, r); !ok {
			return proto.MarshalOptions{}.MarshalAppend(b[:start], m)
		}
		if i == 1 {
			// this allocation's size for it and each after it: one growth
			// of b in the usual list, of allocations alike
			b = slices.Grow(b, (len(allocs)-1)*(len(body)+8))
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = append(appendVarint(b, uint64(len(body))), body...)
	}
	return b, nil
}

// appendOthers appends the encoding of m's fields but its allocation
// list: by hand in the usual cases, a response with nothing else (one per
// allocation to an RM that sees each) and a request with its RM's ID
// only; through others and protobuf-go otherwise.
func appendOthers(b []byte, m proto.Message) ([]byte, error) {
	switch x := m.(type) {
	case *si.AllocationResponse:
		if len(x.Released) == 0 && len(x.RejectedAllocations) == 0 && len(x.ProtoReflect().GetUnknown()) == 0 {
			return b, nil
		}
	case *si.AllocationRequest:
		if x.Releases == nil && utf8.ValidString(x.RmID) && len(x.ProtoReflect().GetUnknown()) == 0 {
			return appendString(b, requestRmID, x.RmID), nil
		}
	}
	return proto.MarshalOptions{}.MarshalAppend(b, others(m))
}

// others returns a message of m's type with m's fields but its allocation
// list (and its unknown fields). TestOthersCopiesEveryField fails when the
// SI's AllocationRequest or AllocationResponse gains a field this does not
// copy.
func others(m proto.Message) proto.Message {
	var o proto.Message
	switch x := m.(type) {
	case *si.AllocationRequest:
		o = &si.AllocationRequest{Releases: x.Releases, RmID: x.RmID}
	case *si.AllocationResponse:
		o = &si.AllocationResponse{Released: x.Released, RejectedAllocations: x.RejectedAllocations}
	default:
		panic("protocodec: others of a message without an allocation list")
	}
	if u := m.ProtoReflect().GetUnknown(); len(u) > 0 {
		o.ProtoReflect().SetUnknown(u)
	}
	return o
}

// decode decodes b into m, whose allocation list has field number num:
// the allocations by hand (allocDecoder), the rest of the message by
// protobuf-go. It reports false when b is not as it expects (malformed,
// or an allocation protobuf-go would decode its own way: allocDecoder);
// the caller then decodes b with proto.Unmarshal, which says what is
// wrong with it.
func decode(b []byte, m proto.Message, num protowire.Number) bool {
	// rest, the message without its allocations, is at most as long as b
	buf := getScratch(len(b))
	defer putScratch(buf)
	var (
		rest   = (*buf)[:0]
		d      allocDecoder
		allocs []*si.Allocation
	)
	for len(b) > 0 {
		n, typ, k, l, ok := field(b)
		if !ok {
			return false
		}
		if n != num || typ != protowire.BytesType {
			rest = append(rest, b[:l]...)
			b = b[l:]
			continue
		}
		v, _ := protowire.ConsumeBytes(b[k:l])
		a, ok := d.allocation(v)
		if !ok {
			return false
		}
		allocs = append(allocs, a)
		b = b[l:]
	}
	if err := proto.Unmarshal(rest, m); err != nil {
		return false
	}
	lp, _, _ := list(m)
	*lp = allocs
	return true
}

// field splits off the first field of b: its number and wire type, where
// its value starts (after the tag) and where the field ends; false when
// b does not begin with a well-formed field of a valid number.
func field(b []byte) (n protowire.Number, typ protowire.Type, start, end int, ok bool) {
	n, typ, k := protowire.ConsumeTag(b)
	if k < 0 || n > protowire.MaxValidNumber { // protobuf-go refuses both
		return 0, 0, 0, 0, false
	}
	l := protowire.ConsumeFieldValue(n, typ, b[k:])
	if l < 0 {
		return 0, 0, 0, 0, false
	}
	return n, typ, k, k + l, true
}
