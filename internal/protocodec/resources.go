package protocodec

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// resourceEncodings encodes the resource messages of one list: each
// one anew (appendResource: about 200 ns for two types), but for a message
// that follows itself (allocations sharing their resources by pointer,
// as Paddock's do). The encoding returned is good until the next call.
type resourceEncodings struct {
	last    *si.Resource
	scratch []byte
}

func (e *resourceEncodings) of(r *si.Resource) ([]byte, error) {
	if r == e.last {
		return e.scratch, nil
	}
	e.last = nil
	b, ok := appendResource(e.scratch[:0], r)
	if !ok {
		var err error
		if b, err = (proto.MarshalOptions{}).MarshalAppend(e.scratch[:0], r); err != nil {
			return nil, err
		}
	}
	e.last, e.scratch = r, b
	return b, nil
}

// appendResource appends the encoding of r to b, its map's entries in
// the order of their names, and reports whether it did: not when r or a
// quantity has unknown fields, a quantity is nil or a name is not valid
// UTF-8, which proto.Marshal then encodes (or refuses, with its error). Every allocation of a list may have its own resource
// message with the same contents (the RM builds one per ask), and
// protobuf-go's encoding of a map costs about 1.5 µs for two entries
// where this takes about 200 ns; the tests hold it to
// proto.Marshal.
func appendResource(b []byte, r *si.Resource) ([]byte, bool) {
	if len(r.ProtoReflect().GetUnknown()) > 0 {
		return b, false
	}
	type entry struct {
		name string
		v    int64
	}
	var (
		small   [8]entry
		entries = small[:0]
	)
	for name, q := range r.Resources {
		if q == nil || len(q.ProtoReflect().GetUnknown()) > 0 || !utf8.ValidString(name) {
			return b, false
		}
		// in the order of the names (an insertion: a resource has a few)
		entries = append(entries, entry{name, q.Value})
		for i := len(entries) - 1; i > 0 && entries[i].name < entries[i-1].name; i-- {
			entries[i], entries[i-1] = entries[i-1], entries[i]
		}
	}
	for _, e := range entries {
		// the entry: the name (field 1) and the quantity (field 2), whose
		// value (field 1) proto3 leaves out when it is 0
		q := 0
		if e.v != 0 {
			q = protowire.SizeTag(1) + protowire.SizeVarint(uint64(e.v))
		}
		size := protowire.SizeTag(1) + protowire.SizeBytes(len(e.name)) + protowire.SizeTag(2) + protowire.SizeBytes(q)
		// the tags are one byte each; most lengths too (protowire's
		// AppendVarint is not inlined)
		b = appendLen(b, tag1Bytes, size)
		b = appendField(b, tag1Bytes, e.name)
		b = appendLen(b, tag2Bytes, q)
		if e.v != 0 {
			b = protowire.AppendVarint(append(b, tag1Varint), uint64(e.v))
		}
	}
	return b, true
}

// The one-byte tags of appendResource: fields 1 and 2, of their types.
const (
	tag1Bytes  = 1<<3 | byte(protowire.BytesType)
	tag2Bytes  = 2<<3 | byte(protowire.BytesType)
	tag1Varint = 1<<3 | byte(protowire.VarintType)
)

// bytesTag is the one-byte tag of length-delimited field n (below 16).
func bytesTag(n protowire.Number) byte { return byte(n)<<3 | byte(protowire.BytesType) }

// appendLen appends the one-byte tag of a length-delimited field and the
// length n of the value that follows it.
func appendLen(b []byte, tag byte, n int) []byte { return appendVarint(append(b, tag), uint64(n)) }

// appendField appends the length-delimited field v under its one-byte tag.
func appendField(b []byte, tag byte, v string) []byte { return append(appendLen(b, tag, len(v)), v...) }

// appendVarint is protowire.AppendVarint, with a one-byte value inlined.
func appendVarint(b []byte, v uint64) []byte {
	if v < 0x80 {
		return append(b, byte(v))
	}
	return protowire.AppendVarint(b, v)
}

// resourceTable holds the resource messages decoded from one list, by
// encoding (seen) and by canonical encoding (canon: the map's entries in
// name order). protobuf-go writes a map's entries in any order, so a peer
// that encodes with it sends the resources of one shape in as many
// encodings as orders of its entries; each distinct encoding is put in
// canonical form once, and those alike share one message.
type resourceTable struct {
	last  []byte
	lastR *si.Resource
	seen  map[string]*si.Resource
	canon map[string]*si.Resource
	// scratch of canonical
	entries []namedEntry
	buf     []byte
}

// namedEntry is an entry of a resource map: its name, and the whole field.
type namedEntry struct {
	name, field []byte
}

func (t *resourceTable) of(b []byte) (*si.Resource, bool) {
	if t.lastR != nil && string(b) == string(t.last) {
		return t.lastR, true
	}
	r, ok := t.seen[string(b)]
	if !ok {
		key := t.canonical(b)
		if r, ok = t.canon[string(key)]; !ok {
			r = &si.Resource{}
			if err := proto.Unmarshal(b, r); err != nil {
				return nil, false
			}
			if t.canon == nil {
				t.canon = map[string]*si.Resource{}
			}
			t.canon[string(key)] = r
		}
		if t.seen == nil {
			t.seen = map[string]*si.Resource{}
		}
		t.seen[string(b)] = r
	}
	t.last, t.lastR = b, r
	return r, true
}

// canonical returns resource encoding b with its map's entries in name
// order (stable: entries of one name keep their order, the last one being
// the one protobuf keeps): b itself when they are in order already, as
// appendResource writes them, or when b is anything but a list of
// entries with names (it is then its own key). Two encodings with the
// same canonical form decode to the same message.
func (t *resourceTable) canonical(b []byte) []byte {
	t.entries = t.entries[:0]
	sorted := true
	for rest := b; len(rest) > 0; {
		n, typ, k, l, ok := field(rest)
		if !ok || n != 1 || typ != protowire.BytesType {
			return b
		}
		v, _ := protowire.ConsumeBytes(rest[k:])
		name, ok := entryName(v)
		if !ok {
			return b
		}
		if len(t.entries) > 0 && string(name) < string(t.entries[len(t.entries)-1].name) {
			sorted = false
		}
		t.entries = append(t.entries, namedEntry{name, rest[:l]})
		rest = rest[l:]
	}
	if sorted {
		return b
	}
	slices.SortStableFunc(t.entries, func(x, y namedEntry) int { return bytes.Compare(x.name, y.name) })
	t.buf = t.buf[:0]
	for _, e := range t.entries {
		t.buf = append(t.buf, e.field...)
	}
	return t.buf
}

// entryName returns the name (key, field 1) of map entry v, the last one
// when it comes more than once, and false when v holds anything but
// length-delimited fields 1 and 2.
func entryName(v []byte) ([]byte, bool) {
	var name []byte
	for len(v) > 0 {
		n, typ, k, l, ok := field(v)
		if !ok || typ != protowire.BytesType || n != 1 && n != 2 {
			return nil, false
		}
		if n == 1 {
			name, _ = protowire.ConsumeBytes(v[k:])
		}
		v = v[l:]
	}
	return name, true
}
