package protocodec

import (
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// An allocation's tags (map<string, string> allocationTags, field 2) are
// the other map of the allocation lists: the Kubernetes shim tags every
// ask with its namespace, pod name, creation time and labels, and Paddock
// returns them with the allocation. protobuf-go encodes and decodes them
// entry by entry through reflection: over gRPC, asks with six tags went
// through at a quarter of the rate of asks without once the resources
// were encoded by hand (`paddock bench -grpc -tags 6`). The codec writes
// them itself (appendTags) and reads them itself (tagDecoder), the keys
// of one message's tags interned and a value shared with the key's
// previous one when it is the same.

// allocTags is the field number of Allocation.allocationTags.
const allocTags protowire.Number = 2

// appendTags appends the entries of tags to b as the allocationTags field
// of an allocation (in the map's order, as protobuf-go's), and reports
// whether it did: not when a key or value is not valid UTF-8, which
// protobuf-go refuses to encode (the caller leaves the tags to it, and
// the error with them).
func appendTags(b []byte, tags map[string]string) ([]byte, bool) {
	for k, v := range tags {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return b, false
		}
		entry := 2 + protowire.SizeBytes(len(k)) + protowire.SizeBytes(len(v)) // two one-byte tags
		b = appendLen(b, bytesTag(allocTags), entry)
		b = appendField(b, tag1Bytes, k)
		b = appendField(b, tag2Bytes, v)
	}
	return b, true
}

// maxInterned bounds the tag keys a tagDecoder keeps: past it, keys not
// seen yet are allocated each time.
const maxInterned = 4096

// tagDecoder builds the tag maps of one message's allocations. A tag key
// is one string for the whole message, and a value the same as the one
// the key had last is that string again: a request's asks repeat their
// namespace and labels, while their pod names and IDs differ (interning
// every value cost more than it saved).
type tagDecoder struct {
	keys map[string]*tagKey
}

// tagKey is an interned key and its latest value.
type tagKey struct {
	key, last string
}

// entry returns the strings of the key and value k, v.
func (d *tagDecoder) entry(k, v []byte) (string, string) {
	t, ok := d.keys[string(k)]
	if !ok {
		if d.keys == nil {
			d.keys = make(map[string]*tagKey, 16)
		}
		if len(d.keys) >= maxInterned {
			return string(k), string(v)
		}
		t = &tagKey{key: string(k), last: string(v)}
		d.keys[t.key] = t
		return t.key, t.last
	}
	if string(v) != t.last {
		t.last = string(v)
	}
	return t.key, t.last
}

// tags returns the map of the encoded entries, and false when an entry
// holds anything but a key and a value (each at most once is usual; the
// last wins, as in protobuf) or a string that is not valid UTF-8, which
// the caller leaves to protobuf-go.
func (d *tagDecoder) tags(entries [][]byte) (map[string]string, bool) {
	m := make(map[string]string, len(entries))
	for _, e := range entries {
		var k, v []byte
		for len(e) > 0 {
			n, typ, l := protowire.ConsumeTag(e)
			if l < 0 || typ != protowire.BytesType || n != 1 && n != 2 {
				return nil, false
			}
			s, sl := protowire.ConsumeBytes(e[l:])
			if sl < 0 {
				return nil, false
			}
			if n == 1 {
				k = s
			} else {
				v = s
			}
			e = e[l+sl:]
		}
		if !utf8.Valid(k) || !utf8.Valid(v) {
			return nil, false
		}
		key, val := d.entry(k, v)
		m[key] = val
	}
	return m, true
}
