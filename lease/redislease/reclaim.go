package redislease

import (
	"context"
	"fmt"
	"time"

	"github.com/once-go/once/lease/driver"
)

var _ driver.Reclaimer = (*Strategy)(nil)

// Reclaim takes back a lease from its machine ID and token alone, as the
// manager's state file keeps them (lease.Options.StateFile), so that a
// process restarted in a crash loop keeps its ID instead of taking a new
// one each time. In one script it checks that the lease still holds l's
// token, replaces the token with a new one and extends the lease for d:
// afterwards l's token renews, releases and reclaims nothing, so of two
// processes reclaiming one record exactly one wins, and the other is told
// [driver.ErrLost].
//
// Redis keeps nothing of an expired lease, so a lease that expired before
// the restart is driver.ErrLost, and the manager acquires a new ID. A lease
// released within its release hold (Options.ReleaseHold) still exists,
// with its token, and is reclaimed (the manager keeps the state file only
// when a release failed); its previous holder is this process's previous
// incarnation, which the manager's reclaim guard covers.
//
// When the reply is lost, Reclaim returns [driver.ErrRetry] and the lease
// with the new token it may have written (MachineID and Token set), for
// the caller to release.
func (s *Strategy) Reclaim(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	ms, err := millis(d)
	if err != nil {
		return driver.Lease{}, err
	}
	if err := validLease(l); err != nil {
		return driver.Lease{}, err
	}
	if err := s.ready(ctx, true); err != nil {
		return driver.Lease{}, err
	}
	token := s.newToken(ctx)
	script, keys, args := reclaimScript, []string{s.idKeys[l.MachineID]}, []any{l.Token, token, ms}
	if s.opts.Mode == ModeHash {
		script, keys, args = hashReclaimScript, s.keys[:1], []any{l.MachineID, l.Token, token, ms}
	}
	op := fmt.Sprintf("reclaim of ID %d (script)", l.MachineID)
	r, ackErr, err := s.run(ctx, script, firstIs(1), keys, args...)
	if err != nil {
		return claimed(l.MachineID, token, err), s.classify(ctx, op, err, false)
	}
	ok, now, _, err := scriptReply(r)
	if err != nil {
		return claimed(l.MachineID, token, err), s.classify(ctx, op, err, false)
	}
	if ok != 1 {
		return driver.Lease{}, s.errorf(driver.ErrLost, "reclaim of ID %d: lease not held with this token", l.MachineID)
	}
	if ackErr != nil {
		return claimed(l.MachineID, token, ackErr), s.errorf(driver.ErrRetry, "%s: reclaimed on the master, but %w", op, ackErr)
	}
	return driver.Lease{MachineID: l.MachineID, Token: token, TTL: time.Duration(ms) * time.Millisecond,
		CoordinatorNow: now, ReleaseHold: s.releaseHold()}, nil
}
