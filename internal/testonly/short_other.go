//go:build !oncetest

package testonly

import "github.com/once-go/once/lease"

// ShortLeases would mark o for short leases; package lease has them only in
// builds with the oncetest tag, so without it ShortLeases panics with the
// command to run.
func ShortLeases(*lease.Options) {
	panic("testonly: short test leases are built only with the oncetest tag: go test -tags oncetest")
}
