//go:build !linux

package bench

// threadCPU is not implemented here: no cpu-ns/op metric.
func threadCPU() (int64, bool) { return 0, false }
