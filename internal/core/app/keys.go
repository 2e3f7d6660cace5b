package app

import "hash/maphash"

// keySeed seeds HashKey; it is drawn once per process, so an RM cannot
// choose keys that share a hash.
var keySeed = maphash.MakeSeed()

// HashKey is the hash under which an application files the ask or
// allocation with key. Any goroutine may compute it (the RM's, while it
// prepares asks), and it is the same for the same key within a process.
func HashKey(key string) uint64 { return maphash.String(keySeed, key) }

// keyIndex finds an application's asks and allocations by key. It is keyed
// by the key's 64-bit hash rather than by the key itself: growing it moves
// 16-byte slots and never reads a key again (with 100,000 asks the keys
// are scattered over the heap, and re-hashing them when a string-keyed map
// grows was most of the map's cost). A key whose hash another live key
// already holds, which a seeded 64-bit hash makes all but impossible, is
// filed under its own string in clash, so the index is exact either way.
type keyIndex struct {
	byHash map[uint64]*Allocation
	clash  map[string]clashed
}

// clashed is an entry of keyIndex.clash: the allocation and its key's hash.
type clashed struct {
	x *Allocation
	h uint64
}

func newKeyIndex() keyIndex { return keyIndex{byHash: map[uint64]*Allocation{}} }

// find returns the ask or allocation with key, whose hash is h, or nil.
func (k *keyIndex) find(key string, h uint64) *Allocation {
	if x := k.byHash[h]; x != nil && x.Key == key {
		return x
	}
	if k.clash == nil {
		return nil
	}
	return k.clash[key].x
}

// add files x, whose key has hash h and is not in the index.
func (k *keyIndex) add(x *Allocation, h uint64) {
	if _, taken := k.byHash[h]; !taken {
		k.byHash[h] = x
		return
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
	if k.byHash[h] != x {
		delete(k.clash, x.Key)
		return
	}
	delete(k.byHash, h)
	for key, c := range k.clash {
		if c.h == h {
			delete(k.clash, key)
			k.byHash[h] = c.x
			return
		}
	}
}

// len is the number of entries.
func (k *keyIndex) len() int { return len(k.byHash) + len(k.clash) }

// each calls fn for every entry until it returns false; fn must not add
// or remove entries.
func (k *keyIndex) each(fn func(*Allocation) bool) {
	for _, x := range k.byHash {
		if !fn(x) {
			return
		}
	}
	for _, c := range k.clash {
		if !fn(c.x) {
			return
		}
	}
}
