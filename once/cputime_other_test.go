//go:build !linux

package once_test

func threadCPU() int64 { return -1 }
