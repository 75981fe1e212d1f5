package sqllease

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

var _ driver.Claimer = (*Strategy)(nil)

// Claim leases machine ID id for d if its row is free, with Acquire's
// read and claim restricted to that one row:
//
//	SELECT ... WHERE expires_at < now AND id >= :id AND id <= :id
//	UPDATE t SET expires_at = now + d, token = :new, lock_version = lock_version + 1
//	 WHERE id = :id AND lock_version = :seen AND expires_at < now
//
// A row that is held (or missing), or claimed by a racing contender
// between the read and the claim, is driver.ErrConflict naming the ID and
// the table. The lease carries PrevExpiry and CoordinatorNow as from
// Acquire. When the claim was sent but its outcome is unknown
// (driver.ErrRetry), Claim returns the lease it may have claimed beside the
// error, for the caller to release.
func (s *Strategy) Claim(ctx context.Context, id int, d time.Duration) (driver.Lease, error) {
	op := "claim machine ID " + strconv.Itoa(id)
	if !leasekit.ValidID(id) {
		return driver.Lease{}, leasekit.Errorf(pkg, driver.ErrConfig, "claim: machine ID %d outside 0..%d", id, leasekit.IDs-1)
	}
	if ids := *s.opts.MachineIDs; !ids.Contains(id) {
		return driver.Lease{}, leasekit.Errorf(pkg, driver.ErrConfig, "claim: machine ID %d outside Options.MachineIDs %v", id, ids)
	}
	us, err := micros(d)
	if err != nil {
		return driver.Lease{}, fail(ctx, op, s.opts.Table, err)
	}
	t, ss, err := s.begin(ctx, op, true)
	if err != nil {
		return driver.Lease{}, err
	}
	defer ss.done()
	cands, now, err := s.candidates(ctx, ss, t, nil, id, id)
	if err != nil {
		return driver.Lease{}, fail(ctx, op, t.name, err)
	}
	if len(cands) == 0 {
		return driver.Lease{}, s.held(t, id)
	}
	c := cands[0]
	token, text := newToken()
	l, ok, err := s.write(ctx, ss, t, t.q.claim, s.claimArgs(ctx, t, us, token, c.id, c.lockVersion), us)
	if err != nil {
		err = fail(ctx, op, t.name, err)
		if errors.Is(err, driver.ErrRetry) {
			return driver.Lease{MachineID: id, Token: text}, err // the claim may have been applied
		}
		return driver.Lease{}, err
	}
	if !ok {
		return driver.Lease{}, s.held(t, id)
	}
	l.MachineID, l.Token, l.PrevExpiry = id, text, c.prev
	if l.CoordinatorNow.IsZero() {
		l.CoordinatorNow = now
	}
	return l, nil
}

// held is Claim's error when machine ID id is not free.
func (s *Strategy) held(t *table, id int) error {
	return leasekit.Errorf(pkg, driver.ErrConflict, "machine ID %d is held by someone else in %s", id, t.name)
}
