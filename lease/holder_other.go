//go:build !linux

package lease

// thisProcess returns zero: without Linux's /proc (a process's start time
// and PID namespace) a process cannot be identified across PID reuse.
func thisProcess() procID { return procID{} }

// probeProcess cannot tell.
func probeProcess(int) (liveness, uint64) { return unknown, 0 }
