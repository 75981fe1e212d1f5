//go:build !linux

package cputime

// Thread returns -1: thread CPU time is read on Linux only.
func Thread() int64 { return -1 }

// Process returns -1: process CPU time is read on Linux only.
func Process() int64 { return -1 }

// Of returns -1: another process's CPU time is read on Linux only.
func Of(int) int64 { return -1 }
