package cputime

import (
	"syscall"
	"unsafe"
)

// Thread returns the calling OS thread's CPU time in ns
// (clock_gettime(CLOCK_THREAD_CPUTIME_ID)), or -1 if it cannot be read.
func Thread() int64 {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return -1
	}
	return ts.Nano()
}
