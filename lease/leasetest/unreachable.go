package leasetest

import (
	"context"
	"fmt"
	"time"

	"github.com/once-go/once/lease"
)

// Unreachable returns a strategy whose coordinator never answers: every
// call fails at once with [lease.ErrRetry]. It is a ready-made
// Harness.Broken for in-memory strategies, and a way to test a manager's
// retry path.
func Unreachable() lease.Strategy { return unreachable{} }

type unreachable struct{}

func (unreachable) Name() string        { return "unreachable" }
func (unreachable) Deterministic() bool { return false }

func (unreachable) Acquire(context.Context, time.Duration) (lease.Lease, error) {
	return lease.Lease{}, errUnreachable
}

func (unreachable) Renew(context.Context, lease.Lease, time.Duration) (lease.Lease, error) {
	return lease.Lease{}, errUnreachable
}

func (unreachable) Release(context.Context, lease.Lease) error { return errUnreachable }

var errUnreachable = fmt.Errorf("%w: coordinator unreachable", lease.ErrRetry)
