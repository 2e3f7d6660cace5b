package protocodec

import "sync"

// The codec's scratch buffers: a received message made contiguous, the
// message without its allocations (decode), an allocation's encoding and
// its resources' (Append). They
// come from a pool of their own rather than grpc-go's, which clears every
// buffer it hands out (a tenth of the CPU of a gRPC run with tagged asks
// went to clearing bytes about to be overwritten). A buffer larger than
// maxScratch is not kept.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// maxScratch is the largest buffer the pool keeps: 4 MiB, grpc-go's
// default message size limit.
const maxScratch = 4 << 20

// getScratch returns a buffer of length n (its bytes are stale).
func getScratch(n int) *[]byte {
	p := scratch.Get().(*[]byte)
	if cap(*p) < n {
		*p = make([]byte, n)
	}
	*p = (*p)[:n]
	return p
}

// putScratch returns p to the pool.
func putScratch(p *[]byte) {
	if cap(*p) <= maxScratch {
		scratch.Put(p)
	}
}
