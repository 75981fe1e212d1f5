package guardlease

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// pkg prefixes every error message.
const pkg = "guardlease"

// Coordinator is a dynamic strategy that can lease a chosen machine ID:
// *sqllease.Strategy, *redislease.Strategy and *etcdlease.Strategy.
type Coordinator interface {
	driver.Strategy
	driver.Claimer
}

// Strategy is a deterministic [driver.Strategy]: the fixed strategy's
// machine ID, held as a lease in a coordinator. Create it with [New].
type Strategy struct {
	fixed driver.Strategy
	coord Coordinator
	where string
}

var _ driver.Strategy = (*Strategy)(nil)

// New returns a strategy that takes its machine ID from fixed (an
// environment variable or host-list strategy) and holds that ID as a lease
// in coordinator. where names the coordinator in errors and logs (say
// "PostgreSQL table once_leases"); empty means coordinator.Name(). It
// fails with [driver.ErrConfig] when fixed is nil or not deterministic, or
// coordinator is nil or deterministic.
func New(fixed driver.Strategy, coordinator Coordinator, where string) (*Strategy, error) {
	switch {
	case isNil(fixed):
		return nil, leasekit.Errorf(pkg, driver.ErrConfig, "nil fixed strategy")
	case isNil(coordinator):
		return nil, leasekit.Errorf(pkg, driver.ErrConfig, "nil coordinator")
	case !fixed.Deterministic():
		return nil, leasekit.Errorf(pkg, driver.ErrConfig, "strategy %s hands out any free machine ID; the guard is for a fixed one (env, host)", fixed.Name())
	case coordinator.Deterministic():
		return nil, leasekit.Errorf(pkg, driver.ErrConfig, "coordinator %s is deterministic; it must keep leases (sql, redis, etcd)", coordinator.Name())
	}
	if where == "" {
		where = coordinator.Name()
	}
	return &Strategy{fixed: fixed, coord: coordinator, where: where}, nil
}

// Name returns the fixed strategy's name and the coordinator's, joined by
// "+" ("env+sql").
func (s *Strategy) Name() string { return s.fixed.Name() + "+" + s.coord.Name() }

// Deterministic returns true: the machine ID is the fixed strategy's.
func (s *Strategy) Deterministic() bool { return true }

// Acquire reads the fixed strategy's machine ID and claims it from the
// coordinator for d. When the coordinator holds the ID for someone else,
// the error names the ID and the coordinator and matches
// [driver.ErrConflict]. The fixed strategy's errors (an unset variable:
// [driver.ErrConfig]) and the coordinator's are returned as they are; a
// claim whose outcome is unknown is returned beside [driver.ErrRetry], for
// the caller to release. The lease is the coordinator's: its TTL, clock
// and release hold.
func (s *Strategy) Acquire(ctx context.Context, d time.Duration) (driver.Lease, error) {
	fl, err := s.fixed.Acquire(ctx, d)
	if err != nil {
		return driver.Lease{}, err
	}
	id := fl.MachineID
	if !leasekit.ValidID(id) {
		return driver.Lease{}, leasekit.Errorf(pkg, driver.ErrConfig, "strategy %s gave machine ID %d, outside 0..%d", s.fixed.Name(), id, leasekit.IDs-1)
	}
	l, err := s.coord.Claim(ctx, id, d)
	switch {
	case errors.Is(err, driver.ErrConflict):
		return driver.Lease{}, fmt.Errorf("%s: machine ID %d (from %s) is in use elsewhere: %s holds it for another process: %w",
			pkg, id, s.fixed.Name(), s.where, err)
	case err != nil:
		return l, fmt.Errorf("%s: claiming machine ID %d in %s: %w", pkg, id, s.where, err)
	case l.MachineID != id:
		// Returned beside the error, the lease is released by the manager.
		return l, leasekit.Errorf(pkg, driver.ErrConfig, "%s claimed machine ID %d as %d", s.where, id, l.MachineID)
	}
	return l, nil
}

// Renew renews the coordinator's lease. The fixed strategy's own Renew
// is not called: env and host strategies hold nothing to renew, and the
// lease carries only the coordinator's token. An error matching
// [driver.ErrLost] names the ID and the coordinator: the coordinator no
// longer holds the ID for this process, and another may be using it.
func (s *Strategy) Renew(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	nl, err := s.coord.Renew(ctx, l, d)
	if errors.Is(err, driver.ErrLost) {
		err = fmt.Errorf("%s: machine ID %d is no longer held for this process in %s: %w", pkg, l.MachineID, s.where, err)
	}
	return nl, err
}

// Release releases the coordinator's lease: the ID is free for a
// successor once the coordinator's release hold has passed.
func (s *Strategy) Release(ctx context.Context, l driver.Lease) error {
	return s.coord.Release(ctx, l)
}

// isNil reports whether v is nil or a nil pointer in an interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
