// Package cputime reads the calling OS thread's CPU time, for benchmarks
// that report cpu-ns/op next to wall time: on a shared, loaded machine wall
// time also counts the time other processes held the CPU. Callers lock the
// goroutine to its thread (runtime.LockOSThread) around the measurement.
// Process and Of read a whole process's, Of another's (a database server's).
package cputime
