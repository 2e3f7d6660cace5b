package rmproxy

import (
	"testing"
	"unsafe"

	"github.com/paddock-sched/paddock/internal/core/app"
)

// A block of asks fills its size class: the runtime rounds an object up
// to its class (10,240 bytes here), and one more ask would not fit.
// Resize allocBlock when app.Allocation changes size.
func TestAllocBlockFillsSizeClass(t *testing.T) {
	const class = 10240
	size := unsafe.Sizeof(app.Allocation{})
	if b := allocBlock * size; b > class || class-b >= size {
		t.Errorf("%d asks of %d bytes take %d bytes, want the most that fit in %d", allocBlock, size, b, class)
	}
}
