//go:build !oncetest

package testonly

import (
	"os"
	"testing"

	"github.com/once-go/once/lease"
)

// Enabled reports whether this build has short test leases: package lease
// has them only in builds with the oncetest tag.
const Enabled = false

// skipReason is what a test that needs short leases says when it skips.
const skipReason = "needs short test leases, built only with the oncetest tag: run make safety (the safety suite, CONTRIBUTING.md)"

// Need skips the test tb, which runs on short leases: without the oncetest
// tag there are none.
func Need(tb testing.TB) {
	tb.Helper()
	tb.Skip(skipReason)
}

// ShortLeases leaves o unmarked: without the oncetest tag there are no
// short leases, and lease.Start refuses durations below the production
// minimums with lease.ErrConfig. A test that needs them calls Need (or its
// package SkipPackage) first, which skips it.
func ShortLeases(*lease.Options) {}

// SkipPackage, called first in a TestMain of a package whose tests all run
// on short leases, ends the test binary with exit status 0 and a line saying
// why when it is built without the oncetest tag.
func SkipPackage() {
	os.Stdout.WriteString("skipped: every test here " + skipReason + "\n")
	os.Exit(0)
}
