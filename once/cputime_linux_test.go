package once_test

import (
	"syscall"
	"unsafe"
)

// threadCPU returns the calling OS thread's CPU time in ns
// (CLOCK_THREAD_CPUTIME_ID), or -1.
func threadCPU() int64 {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return -1
	}
	return ts.Nano()
}
