package partition

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU is the calling thread's CPU time so far
// (CLOCK_THREAD_CPUTIME_ID: exact, where the thread's rusage only moves
// at the kernel's scheduler ticks and switches).
func threadCPU() (time.Duration, bool) {
	const clockThreadCPUTime = 3
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
