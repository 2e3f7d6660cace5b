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
// were encoded by hand (`paddock bench -grpc -tags 6`). The codec writes them itself (appendTags) and reads them
// itself (tagDecoder), the strings of one message's tags interned.

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
		b = appendVarint(append(b, tag2Bytes), uint64(entry))
		b = append(appendVarint(append(b, tag1Bytes), uint64(len(k))), k...)
		b = append(appendVarint(append(b, tag2Bytes), uint64(len(v))), v...)
	}
	return b, true
}

// maxInterned bounds the strings a tagDecoder keeps: past it, strings not
// seen yet are allocated each time (the pod names and IDs, which differ
// per ask, would otherwise fill it).
const maxInterned = 4096

// tagDecoder builds the tag maps of one message's allocations, with one
// string for each distinct key or value (up to maxInterned of them).
type tagDecoder struct {
	strs map[string]string
}

// str returns b as a string, the same string for the same bytes.
func (d *tagDecoder) str(b []byte) string {
	if s, ok := d.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if d.strs == nil {
		d.strs = make(map[string]string, 64)
	}
	if len(d.strs) < maxInterned {
		d.strs[s] = s
	}
	return s
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
		m[d.str(k)] = d.str(v)
	}
	return m, true
}
