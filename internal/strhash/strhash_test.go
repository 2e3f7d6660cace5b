package strhash

import (
	"hash/fnv"
	"testing"
)

func TestOfIsStableAndMixed(t *testing.T) {
	if Of("node-1") != Of("node-1") {
		t.Fatal("the same string hashed to two values")
	}
	h := fnv.New64a()
	h.Write([]byte("node-1"))
	if Of("node-1") == h.Sum64() {
		t.Fatal("the FNV value was not mixed")
	}
	// neighbouring IDs differ in about half their bits
	a, b := Of("node-1"), Of("node-2")
	bits := 0
	for x := a ^ b; x != 0; x &= x - 1 {
		bits++
	}
	if bits < 16 || bits > 48 {
		t.Fatalf("node-1 and node-2 differ in %d bits", bits)
	}
}
