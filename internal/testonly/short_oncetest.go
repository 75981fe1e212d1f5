//go:build oncetest

package testonly

import (
	"testing"

	"github.com/once-go/once/lease"
)

// Enabled reports whether this build has short test leases.
const Enabled = true

// ShortLeases marks o for lease durations and renew intervals below the
// production minimums (see lease.ShortLeases).
func ShortLeases(o *lease.Options) { lease.ShortLeases(o) }

// Need does nothing in builds with the oncetest tag.
func Need(testing.TB) {}

// SkipPackage does nothing in builds with the oncetest tag.
func SkipPackage() {}
