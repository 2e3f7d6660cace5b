package protocodec

import (
	"encoding/binary"
	"slices"

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
// too (tags.go). The rest of each allocation is protobuf-go's. The wire
// format is protobuf's; only the order of the fields differs (the list
// comes last, each allocation's maps after its other fields), which
// every decoder accepts.

// Field numbers of the SI messages the codec handles itself, as the
// generated code declares them (checked against the descriptors by the
// tests).
const (
	requestAllocations protowire.Number = 4 // AllocationRequest.allocations
	responseNew        protowire.Number = 1 // AllocationResponse.new
	allocResources     protowire.Number = 5 // Allocation.resourcePerAlloc
)

// list returns the allocation list of m and its field number, or false
// when m is not a message with one.
func list(m any) ([]*si.Allocation, protowire.Number, bool) {
	switch x := m.(type) {
	case *si.AllocationRequest:
		return x.Allocations, requestAllocations, true
	case *si.AllocationResponse:
		return x.New, responseNew, true
	}
	return nil, 0, false
}

// Append appends the wire encoding of m to b: proto.Marshal's, with the
// resources and tags of an AllocationRequest's or AllocationResponse's
// allocations encoded by appendResource and appendTags.
func Append(b []byte, m proto.Message) ([]byte, error) {
	allocs, num, ok := list(m)
	if !ok || len(allocs) == 0 {
		return proto.MarshalOptions{}.MarshalAppend(b, m)
	}
	for _, a := range allocs {
		if a == nil { // as proto.Marshal has it
			return proto.MarshalOptions{}.MarshalAppend(b, m)
		}
	}
	// the message's other fields first, as proto.Marshal encodes them
	b, err := proto.MarshalOptions{}.MarshalAppend(b, others(m))
	if err != nil {
		return b, err
	}
	var (
		enc   resourceEncodings
		bare  si.Allocation // an allocation without its resources and tags
		body  []byte
		tags  []byte
		clean = true // bare has no unknown fields
	)
	for i, a := range allocs {
		strip(&bare, a)
		if u := a.ProtoReflect().GetUnknown(); len(u) > 0 || !clean {
			bare.ProtoReflect().SetUnknown(u)
			clean = len(u) == 0
		}
		var byHand bool
		if tags, byHand = appendTags(tags[:0], a.AllocationTags); !byHand {
			bare.AllocationTags = a.AllocationTags
			tags = tags[:0]
		}
		if body, err = (proto.MarshalOptions{}).MarshalAppend(body[:0], &bare); err != nil {
			return b, err
		}
		size := len(body) + len(tags)
		var r []byte
		if a.ResourcePerAlloc != nil {
			if r, err = enc.of(a.ResourcePerAlloc); err != nil {
				return b, err
			}
			size += protowire.SizeTag(allocResources) + protowire.SizeBytes(len(r))
		}
		if i == 1 {
			// this allocation's size for it and each after it: one growth
			// of b in the usual list, of allocations alike
			b = slices.Grow(b, (len(allocs)-1)*(size+8))
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(size))
		b = append(append(b, body...), tags...)
		if a.ResourcePerAlloc != nil {
			b = protowire.AppendTag(b, allocResources, protowire.BytesType)
			b = protowire.AppendBytes(b, r)
		}
	}
	return b, nil
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

// strip sets dst to the fields of a but its resources and tags (and its
// unknown fields, which the caller copies). TestStripCopiesEveryField
// fails when the SI's Allocation gains a field this does not copy.
func strip(dst, a *si.Allocation) {
	dst.AllocationKey = a.AllocationKey
	dst.AllocationTags = nil
	dst.Priority = a.Priority
	dst.NodeID = a.NodeID
	dst.ApplicationID = a.ApplicationID
	dst.PartitionName = a.PartitionName
	dst.TaskGroupName = a.TaskGroupName
	dst.Placeholder = a.Placeholder
	dst.Originator = a.Originator
	dst.PreemptionPolicy = a.PreemptionPolicy
}

// decode decodes b into m, whose allocation list has field number num:
// the allocations' resources and tags taken out, the rest by protobuf-go,
// then each distinct resource encoding once (resourceTable) and the tags
// by hand (tagDecoder). It reports false when b is not as it expects
// (malformed, an allocation whose resources come in several parts, which
// protobuf merges, tags that are not plain UTF-8 keys and values); the
// caller then decodes b with proto.Unmarshal, which says what is wrong
// with it.
func decode(b []byte, m proto.Message, num protowire.Number) bool {
	// rest, the message without the allocations' resources and tags, is
	// at most as long as b
	buf := getScratch(len(b))
	defer putScratch(buf)
	var (
		rest = (*buf)[:0]
		res  [][]byte // the allocations' resource encodings, nil for none
		// the allocations' tag entries: allocation i's are
		// entries[tagsAt[i]:tagsAt[i+1]]
		entries [][]byte
		tagsAt  = []int{0}
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
		var r []byte
		if rest, r, entries, ok = takeMaps(rest, num, b[k:l], entries); !ok {
			return false
		}
		b = b[l:]
		res = append(res, r)
		tagsAt = append(tagsAt, len(entries))
	}
	if err := proto.Unmarshal(rest, m); err != nil {
		return false
	}
	allocs, _, _ := list(m)
	if len(allocs) != len(res) {
		return false
	}
	var (
		table resourceTable
		td    tagDecoder
	)
	for i, r := range res {
		if e := entries[tagsAt[i]:tagsAt[i+1]]; len(e) > 0 {
			t, ok := td.tags(e)
			if !ok {
				return false
			}
			allocs[i].AllocationTags = t
		}
		if r == nil {
			continue
		}
		x, ok := table.of(r)
		if !ok {
			return false
		}
		allocs[i].ResourcePerAlloc = x
	}
	return true
}

// field splits off the first field of b: its number and wire type, where
// its value starts (after the tag) and where the field ends; false when
// b does not begin with a well-formed field.
func field(b []byte) (n protowire.Number, typ protowire.Type, start, end int, ok bool) {
	n, typ, k := protowire.ConsumeTag(b)
	if k < 0 {
		return 0, 0, 0, 0, false
	}
	l := protowire.ConsumeFieldValue(n, typ, b[k:])
	if l < 0 {
		return 0, 0, 0, 0, false
	}
	return n, typ, k, k + l, true
}

// takeMaps appends to rest the allocation encoded in the length-prefixed
// value lv, as a field num without its resources and tags, and returns
// the resources' encoding (nil when absent, empty when empty) and the
// tag entries appended to entries; false when the allocation is not as
// decode expects.
func takeMaps(rest []byte, num protowire.Number, lv []byte, entries [][]byte) ([]byte, []byte, [][]byte, bool) {
	v, _ := protowire.ConsumeBytes(lv)
	rest = protowire.AppendTag(rest, num, protowire.BytesType)
	rest = append(rest, 0) // the length, once known
	lenAt := len(rest) - 1
	var r []byte
	found := false
	for len(v) > 0 {
		n, typ, k, l, ok := field(v)
		if !ok {
			return rest, nil, entries, false
		}
		switch {
		case n == allocResources:
			if typ != protowire.BytesType || found {
				return rest, nil, entries, false
			}
			if r, _ = protowire.ConsumeBytes(v[k:]); r == nil {
				r = []byte{}
			}
			found = true
		case n == allocTags && typ == protowire.BytesType:
			e, _ := protowire.ConsumeBytes(v[k:])
			entries = append(entries, e)
		default:
			rest = append(rest, v[:l]...)
		}
		v = v[l:]
	}
	return setLength(rest, lenAt), r, entries, true
}

// setLength writes the length of the field value that follows the
// one-byte length placeholder at lenAt of b, moving the value when the
// length takes more bytes.
func setLength(b []byte, lenAt int) []byte {
	n := len(b) - lenAt - 1
	if n < 0x80 {
		b[lenAt] = byte(n)
		return b
	}
	var v [binary.MaxVarintLen64]byte
	l := protowire.AppendVarint(v[:0], uint64(n))
	b = append(b, l[1:]...) // room for the longer length
	copy(b[lenAt+len(l):], b[lenAt+1:len(b)-(len(l)-1)])
	copy(b[lenAt:], l)
	return b
}
