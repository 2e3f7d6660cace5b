// Package strhash maps strings to well-spread 64-bit values that are the
// same on every run and machine, for the places that need a deterministic
// pseudo-random draw from an ID (the replay's per-task draws).
package strhash

import "hash/fnv"

// Of is the FNV-1a hash of s, finalised with splitmix64's mixer so that
// similar strings spread over the whole range.
func Of(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	v := h.Sum64()
	v ^= v >> 30
	v *= 0xbf58476d1ce4e5b9
	v ^= v >> 27
	v *= 0x94d049bb133111eb
	v ^= v >> 31
	return v
}
