//go:build !linux

package nonce

func threadCPU() int64 { return -1 }
