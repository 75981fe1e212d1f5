//go:build oncetest

package testonly

import "github.com/once-go/once/lease"

// ShortLeases marks o for lease durations and renew intervals below the
// production minimums (see lease.ShortLeases).
func ShortLeases(o *lease.Options) { lease.ShortLeases(o) }
