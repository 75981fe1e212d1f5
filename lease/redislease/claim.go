package redislease

import (
	"context"
	"fmt"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

var _ driver.Claimer = (*Strategy)(nil)

// Claim leases machine ID id for d if it is free: it runs Acquire's
// script once with id as the only candidate (SET NX PX in key mode,
// HSETEX of a free field in hash mode, both refusing the other mode's
// data). An ID that is held is [driver.ErrConflict] naming the ID and NAME; the other
// errors are Acquire's, and an unknown outcome returns the lease the claim
// may have written beside [driver.ErrRetry], for the caller to release.
func (s *Strategy) Claim(ctx context.Context, id int, d time.Duration) (driver.Lease, error) {
	if !leasekit.ValidID(id) {
		return driver.Lease{}, s.errorf(driver.ErrConfig, "claim: machine ID %d outside 0..%d", id, Capacity-1)
	}
	if ids := *s.opts.MachineIDs; !ids.Contains(id) {
		return driver.Lease{}, s.errorf(driver.ErrConfig, "claim: machine ID %d outside Options.MachineIDs %v", id, ids)
	}
	ms, err := millis(d)
	if err != nil {
		return driver.Lease{}, err
	}
	if err := s.ready(ctx, true); err != nil {
		return driver.Lease{}, err
	}
	op := fmt.Sprintf("claim of ID %d (script)", id)
	// pick -1: a held candidate is answered with the lowest free ID (or
	// -1 when none is), which Claim does not use.
	l, code, _, err := s.claimOnce(ctx, op, id, ms, -1)
	if err != nil {
		return l, err
	}
	switch code {
	case int64(id):
		return l, nil
	case -1, -3:
		return driver.Lease{}, s.errorf(driver.ErrConflict, "claim: machine ID %d is held by someone else", id)
	case -2:
		return driver.Lease{}, s.otherModeError()
	}
	return driver.Lease{}, s.classify(ctx, op, fmt.Errorf("unexpected reply %d", code), false)
}
