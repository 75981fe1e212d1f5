package leasetest

import (
	"context"
	"fmt"
	"time"

	"github.com/once-go/once/lease/driver"
)

// Unreachable returns a strategy whose coordinator never answers: every
// call fails at once with [driver.ErrRetry]. It is a ready-made
// Harness.Broken for in-memory strategies, and a way to test a manager's
// retry path.
func Unreachable() driver.Strategy { return unreachable{} }

type unreachable struct{}

func (unreachable) Name() string        { return "unreachable" }
func (unreachable) Deterministic() bool { return false }

func (unreachable) Acquire(context.Context, time.Duration) (driver.Lease, error) {
	return driver.Lease{}, errUnreachable
}

func (unreachable) Renew(context.Context, driver.Lease, time.Duration) (driver.Lease, error) {
	return driver.Lease{}, errUnreachable
}

func (unreachable) Release(context.Context, driver.Lease) error { return errUnreachable }

var errUnreachable = fmt.Errorf("%w: coordinator unreachable", driver.ErrRetry)
