package lease_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/once-go/once/internal/apicheck"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// apiBudget bounds what package lease exports, counted as apicheck.Exports
// counts (names and struct fields together, in a default build): the
// package is what an application holds in its head, and what strategies
// need lives in lease/driver.
const apiBudget = 49

// TestAPIBudget: package lease exports at most apiBudget names and fields.
func TestAPIBudget(t *testing.T) {
	exports, err := apicheck.Exports(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range exports {
		names = append(names, e.String())
	}
	if len(exports) > apiBudget {
		t.Errorf("package lease exports %d names and fields, more than %d:\n%s", len(exports), apiBudget, strings.Join(names, "\n"))
	}
	t.Logf("%d of %d: %s", len(exports), apiBudget, strings.Join(names, ", "))
}

// TestDocsNameNoUnexportedCode: the docs of lease and of the packages
// under it in this module (driver, the strategies, leasetest) name no
// unexported code and no file: a pkg.go.dev reader could not follow them
// (ARCHITECTURE.md is the maintainer's walkthrough).
func TestDocsNameNoUnexportedCode(t *testing.T) {
	dirs, err := apicheck.PublicPackages(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 8 {
		t.Fatalf("found only %d packages under lease: %v", len(dirs), dirs)
	}
	for _, dir := range dirs {
		findings, err := apicheck.Docs(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range findings {
			t.Errorf("lease/%s: %s", dir, f)
		}
	}
}

// TestSentinelsShared: lease.ErrLost and lease.ErrConfig are the values
// strategies report (driver's), so errors.Is matches either way.
func TestSentinelsShared(t *testing.T) {
	for _, c := range []struct{ app, strategy error }{
		{lease.ErrLost, driver.ErrLost},
		{lease.ErrConfig, driver.ErrConfig},
	} {
		wrapped := fmt.Errorf("sqllease: row 7: %w", c.strategy)
		if c.app != c.strategy || !errors.Is(wrapped, c.app) || !errors.Is(fmt.Errorf("x: %w", c.app), c.strategy) {
			t.Errorf("%v and %v are not one sentinel", c.app, c.strategy)
		}
	}
	for _, err := range []error{driver.ErrLost, driver.ErrRetry, driver.ErrExhausted, driver.ErrConflict, driver.ErrConfig,
		lease.ErrExpired, lease.ErrTimeout, lease.ErrExternal, lease.ErrIllegalTTL, lease.ErrClosed} {
		if !strings.HasPrefix(err.Error(), "lease: ") {
			t.Errorf("%q lacks the prefix lease: ", err)
		}
	}
}
