package app

import "hash/maphash"

// keySeed seeds HashKey; it is drawn once per process, so an RM cannot
// choose keys that share a hash (or crowd one stretch of a keyIndex).
var keySeed = maphash.MakeSeed()

// HashKey is the hash under which an application files the ask or
// allocation with key. Any goroutine may compute it (the RM's, while it
// prepares asks), and it is the same for the same key within a process.
func HashKey(key string) uint64 { return maphash.String(keySeed, key) }

// keyIndex finds an application's asks and allocations by key. It is an
// open-addressing table of 16-byte slots keyed by the key's 64-bit hash,
// probed linearly from the hash's low bits: a look-up reads one slot in
// the usual case and never the key of another entry, and growing it moves
// slots without reading a key again (with 100,000 asks the keys are
// scattered over the heap). The hash is seeded (HashKey) and already
// uniform, so the table uses it as it is. A key whose hash another live
// key already holds, which a seeded 64-bit hash makes all but impossible,
// is filed under its own string in clash, so the index is exact either
// way: every hash is held by at most one slot.
type keyIndex struct {
	slots []keySlot // a power of two long, or nil; at most 3/4 in use
	n     int       // slots in use
	clash map[string]clashed
}

// keySlot is a slot of keyIndex: x is nil when the slot is free.
type keySlot struct {
	h uint64
	x *Allocation
}

// clashed is an entry of keyIndex.clash: the allocation and its key's hash.
type clashed struct {
	x *Allocation
	h uint64
}

// minKeySlots is the size of a keyIndex's first table, and the least it
// shrinks to.
const minKeySlots = 8

func newKeyIndex() keyIndex { return keyIndex{} }

// slotOf returns the slot holding hash h, or -1.
func (k *keyIndex) slotOf(h uint64) int {
	if k.n == 0 {
		return -1
	}
	mask := uint64(len(k.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &k.slots[i]
		if s.x == nil {
			return -1
		}
		if s.h == h {
			return int(i)
		}
	}
}

// find returns the ask or allocation with key, whose hash is h, or nil.
func (k *keyIndex) find(key string, h uint64) *Allocation {
	if i := k.slotOf(h); i >= 0 {
		if x := k.slots[i].x; x.Key == key {
			return x
		}
	}
	if k.clash == nil {
		return nil
	}
	return k.clash[key].x
}

// add files x, whose key has hash h and is not in the index.
func (k *keyIndex) add(x *Allocation, h uint64) {
	if (k.n+1)*4 > len(k.slots)*3 {
		k.resize(max(minKeySlots, 2*len(k.slots)))
	}
	mask := uint64(len(k.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &k.slots[i]
		if s.x == nil {
			*s = keySlot{h, x}
			k.n++
			return
		}
		if s.h == h {
			break // another key holds h
		}
	}
	if k.clash == nil {
		k.clash = map[string]clashed{}
	}
	k.clash[x.Key] = clashed{x, h}
}

// remove takes x, whose key has hash h and is in the index, out of it.
// When x held its hash's slot and a clashing key waits for it, that key
// takes the slot.
func (k *keyIndex) remove(x *Allocation, h uint64) {
	i := k.slotOf(h)
	if i < 0 || k.slots[i].x != x {
		delete(k.clash, x.Key)
		return
	}
	for key, c := range k.clash {
		if c.h == h {
			delete(k.clash, key)
			k.slots[i].x = c.x
			return
		}
	}
	k.vacate(uint64(i))
	if len(k.slots) > minKeySlots && k.n*8 < len(k.slots) {
		k.resize(len(k.slots) / 2)
	}
}

// vacate frees slot i, moving back the slots after it in its run that
// would no longer be found past the hole (backward-shift deletion: the
// table never holds a tombstone).
func (k *keyIndex) vacate(i uint64) {
	mask := uint64(len(k.slots) - 1)
	for j := (i + 1) & mask; k.slots[j].x != nil; j = (j + 1) & mask {
		// the slot at j may fill the hole at i if i lies on its probe
		// path, from its home up to j
		home := k.slots[j].h & mask
		if (i-home)&mask < (j-home)&mask {
			k.slots[i] = k.slots[j]
			i = j
		}
	}
	k.slots[i] = keySlot{}
	k.n--
}

// resize moves the entries to a table of size slots (a power of two with
// room for them).
func (k *keyIndex) resize(size int) {
	old := k.slots
	k.slots = make([]keySlot, size)
	mask := uint64(size - 1)
	for _, s := range old {
		if s.x == nil {
			continue
		}
		i := s.h & mask
		for k.slots[i].x != nil {
			i = (i + 1) & mask
		}
		k.slots[i] = s
	}
}

// len is the number of entries.
func (k *keyIndex) len() int { return k.n + len(k.clash) }

// each calls fn for every entry until it returns false; fn must not add
// or remove entries.
func (k *keyIndex) each(fn func(*Allocation) bool) {
	if k.n > 0 {
		for _, s := range k.slots {
			if s.x != nil && !fn(s.x) {
				return
			}
		}
	}
	for _, c := range k.clash {
		if !fn(c.x) {
			return
		}
	}
}
