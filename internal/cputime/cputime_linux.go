package cputime

import (
	"syscall"
	"unsafe"
)

// Thread returns the calling OS thread's CPU time in ns
// (clock_gettime(CLOCK_THREAD_CPUTIME_ID)), or -1 if it cannot be read.
func Thread() int64 { return clock(3) } // CLOCK_THREAD_CPUTIME_ID

// Process returns the CPU time of the whole process (every thread: GC and
// the database drivers' goroutines included) in ns
// (clock_gettime(CLOCK_PROCESS_CPUTIME_ID)), or -1 if it cannot be read.
func Process() int64 { return clock(2) } // CLOCK_PROCESS_CPUTIME_ID

// Of returns the CPU time of another process, every thread, in ns, read
// through its CPU-time clock (clock_getcpuclockid), or -1 if it cannot be
// read (no such process, or not permitted).
func Of(pid int) int64 {
	if pid <= 0 {
		return -1
	}
	return clock(uintptr(^pid<<3 | 2)) // MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)
}

func clock(id uintptr) int64 {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, id, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return -1
	}
	return ts.Nano()
}
