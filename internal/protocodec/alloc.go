package protocodec

import (
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// An allocation's fields besides its two maps: its key, priority, node,
// application, partition, task group, two flags and preemption policy.
// Through protobuf-go they cost, once the maps were done by hand, a fifth
// of the gRPC path's CPU: its table-driven walk of the message, and on
// decoding a string allocated per field and a policy message per
// allocation. The codec writes and reads them itself: decoding allocates
// the allocation and its strings, but a string the allocation before had
// in the same field is shared (the partition, the application of a run
// of asks), and the allocations of a message with the same policy share
// one message, read only, as they share their resources.

// Field numbers of si.Allocation and si.PreemptionPolicy, as the
// generated code declares them (TestFieldNumbers).
const (
	allocKey         protowire.Number = 1
	allocPriority    protowire.Number = 6
	allocNode        protowire.Number = 8
	allocApp         protowire.Number = 9
	allocPartition   protowire.Number = 10
	allocTaskGroup   protowire.Number = 11
	allocPlaceholder protowire.Number = 12
	allocOriginator  protowire.Number = 14
	allocPolicy      protowire.Number = 15
	policySelf       protowire.Number = 1
	policyOther      protowire.Number = 2
)

// appendAllocation appends the encoding of a (without its field tag and
// length) to b: its fields in number order, as protobuf-go writes them,
// with r as its resources' encoding (unused when a has none) and the tags
// by hand, and its unknown fields last, as protobuf-go writes them. It
// reports false when a string is not valid UTF-8, which protobuf-go
// refuses to encode (the caller leaves the message to it, and the error
// with it).
func appendAllocation(b []byte, a *si.Allocation, r []byte) ([]byte, bool) {
	if !utf8.ValidString(a.AllocationKey) || !utf8.ValidString(a.NodeID) || !utf8.ValidString(a.ApplicationID) ||
		!utf8.ValidString(a.PartitionName) || !utf8.ValidString(a.TaskGroupName) {
		return b, false
	}
	b = appendString(b, allocKey, a.AllocationKey)
	b, ok := appendTags(b, a.AllocationTags)
	if !ok {
		return b, false
	}
	if a.ResourcePerAlloc != nil {
		b = append(appendLen(b, bytesTag(allocResources), len(r)), r...)
	}
	if a.Priority != 0 {
		b = protowire.AppendVarint(append(b, byte(allocPriority)<<3|byte(protowire.VarintType)), uint64(int64(a.Priority)))
	}
	b = appendString(b, allocNode, a.NodeID)
	b = appendString(b, allocApp, a.ApplicationID)
	b = appendString(b, allocPartition, a.PartitionName)
	b = appendString(b, allocTaskGroup, a.TaskGroupName)
	b = appendBool(b, allocPlaceholder, a.Placeholder)
	b = appendBool(b, allocOriginator, a.Originator)
	if p := a.PreemptionPolicy; p != nil {
		u := p.ProtoReflect().GetUnknown()
		size := len(u)
		if p.AllowPreemptSelf {
			size += 2
		}
		if p.AllowPreemptOther {
			size += 2
		}
		b = appendLen(b, bytesTag(allocPolicy), size)
		b = appendBool(b, policySelf, p.AllowPreemptSelf)
		b = append(appendBool(b, policyOther, p.AllowPreemptOther), u...)
	}
	return append(b, a.ProtoReflect().GetUnknown()...), true
}

// appendString appends string field n (below 16: a one-byte tag) unless s
// is empty, as proto3 has it.
func appendString(b []byte, n protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	return appendField(b, bytesTag(n), s)
}

// appendBool appends bool field n (below 16) when v is set.
func appendBool(b []byte, n protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	return append(b, byte(n)<<3|byte(protowire.VarintType), 1)
}

// allocDecoder decodes the allocations of one message: the tags with
// tagDecoder, each distinct resource encoding once (resourceTable), each
// distinct policy one message.
type allocDecoder struct {
	tags     tagDecoder
	table    resourceTable
	policies [4]*si.PreemptionPolicy // by self | other<<1
	entries  [][]byte
	unknown  []byte
	last     [4]string // str's
}

// allocation decodes the encoding v of an allocation. A field the codec
// does not know, or a known one of another wire type, is kept with the
// allocation's unknown fields, as protobuf-go keeps it (its tag
// re-encoded in the shortest form). It reports false when v holds what
// protobuf-go decodes its own way: resources or a policy in several parts
// (merged), a string that is not valid UTF-8, a malformed field (errors),
// tags that are not plain keys and values. The caller then leaves the
// message to proto.Unmarshal.
func (d *allocDecoder) allocation(v []byte) (*si.Allocation, bool) {
	a := &si.Allocation{}
	d.entries, d.unknown = d.entries[:0], d.unknown[:0]
	var res, policy bool
	for len(v) > 0 {
		n, typ, k, l, ok := field(v)
		if !ok {
			return nil, false
		}
		val := v[k:l]
		v = v[l:]
		if typ == protowire.VarintType {
			x, _ := protowire.ConsumeVarint(val)
			switch n {
			case allocPriority:
				a.Priority = int32(x)
			case allocPlaceholder:
				a.Placeholder = x != 0
			case allocOriginator:
				a.Originator = x != 0
			default:
				d.unknown = append(protowire.AppendTag(d.unknown, n, typ), val...)
			}
			continue
		}
		if typ != protowire.BytesType {
			d.unknown = append(protowire.AppendTag(d.unknown, n, typ), val...)
			continue
		}
		s, _ := protowire.ConsumeBytes(val)
		switch n {
		case allocTags:
			d.entries = append(d.entries, s)
		case allocResources:
			if res {
				return nil, false
			}
			res = true
			if a.ResourcePerAlloc, ok = d.table.of(s); !ok {
				return nil, false
			}
		case allocPolicy:
			if policy {
				return nil, false
			}
			policy = true
			if a.PreemptionPolicy, ok = d.policy(s); !ok {
				return nil, false
			}
		case allocKey, allocNode, allocApp, allocPartition, allocTaskGroup:
			if !utf8.Valid(s) {
				return nil, false
			}
			switch n {
			case allocKey:
				a.AllocationKey = string(s)
			case allocNode:
				a.NodeID = d.str(strNode, s)
			case allocApp:
				a.ApplicationID = d.str(strApp, s)
			case allocPartition:
				a.PartitionName = d.str(strPartition, s)
			default:
				a.TaskGroupName = d.str(strTaskGroup, s)
			}
		default:
			d.unknown = append(protowire.AppendTag(d.unknown, n, typ), val...)
		}
	}
	if len(d.unknown) > 0 {
		a.ProtoReflect().SetUnknown(append([]byte(nil), d.unknown...))
	}
	if len(d.entries) > 0 {
		t, ok := d.tags.tags(d.entries)
		if !ok {
			return nil, false
		}
		a.AllocationTags = t
	}
	return a, true
}

// The string fields str shares with the previous allocation's.
const (
	strNode = iota
	strApp
	strPartition
	strTaskGroup
)

// str returns b as a string: field's previous string (strNode ...
// strTaskGroup) when b is the same, as the next allocation of a request
// often has it, a new one otherwise. (Interning
// them all cost more than it saved: a request of 1,000 applications' asks
// has 1,000 application IDs.)
func (d *allocDecoder) str(field int, b []byte) string {
	if last := d.last[field]; string(b) == last {
		return last
	}
	s := string(b)
	d.last[field] = s
	return s
}

// policy returns the preemption policy encoded in v, the same message for
// the same flags; one of its own when v holds other fields too (kept as
// unknown fields); false when v is malformed.
func (d *allocDecoder) policy(v []byte) (*si.PreemptionPolicy, bool) {
	var (
		self, other bool
		unknown     []byte
	)
	for len(v) > 0 {
		n, typ, k, l, ok := field(v)
		if !ok {
			return nil, false
		}
		x, _ := protowire.ConsumeVarint(v[k:l])
		switch {
		case typ == protowire.VarintType && n == policySelf:
			self = x != 0
		case typ == protowire.VarintType && n == policyOther:
			other = x != 0
		default:
			unknown = append(protowire.AppendTag(unknown, n, typ), v[k:l]...)
		}
		v = v[l:]
	}
	if unknown != nil {
		p := &si.PreemptionPolicy{AllowPreemptSelf: self, AllowPreemptOther: other}
		p.ProtoReflect().SetUnknown(unknown)
		return p, true
	}
	i := 0
	if self {
		i |= 1
	}
	if other {
		i |= 2
	}
	if d.policies[i] == nil {
		d.policies[i] = &si.PreemptionPolicy{AllowPreemptSelf: self, AllowPreemptOther: other}
	}
	return d.policies[i], true
}
