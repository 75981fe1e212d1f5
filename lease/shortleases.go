//go:build !oncetest

package lease

// testOptions is what a test build can mark in [Options]: nothing in a
// production build, which has no short leases (see
// shortleases_oncetest.go).
type testOptions struct{}

func (testOptions) shortLeases() bool { return false }
