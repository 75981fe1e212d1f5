package etcdlease

import (
	"context"
	"errors"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

var _ driver.Claimer = (*Strategy)(nil)

// Claim leases machine ID id for d if its key does not exist: it grants
// an etcd lease and creates the key on it in one transaction guarded by
// CreateRevision == 0, as Acquire does for each candidate. A key that
// exists (held, or released and within its release hold) is
// [driver.ErrConflict] naming the ID and the prefix, and the granted etcd
// lease is revoked. When the transaction's outcome is unknown, Claim
// returns the lease it may have written beside [driver.ErrRetry], for the
// caller to release.
func (s *Strategy) Claim(ctx context.Context, id int, d time.Duration) (driver.Lease, error) {
	if !leasekit.ValidID(id) {
		return driver.Lease{}, leasekit.Errorf("etcdlease", driver.ErrConfig, "claim: machine ID %d outside 0..%d", id, Capacity-1)
	}
	if ids := *s.opts.MachineIDs; !ids.Contains(id) {
		return driver.Lease{}, leasekit.Errorf("etcdlease", driver.ErrConfig, "claim: machine ID %d outside Options.MachineIDs %v", id, ids)
	}
	ttl, err := ttlSeconds(d)
	if err != nil {
		return driver.Lease{}, err
	}
	g, err := s.grant(ctx, ttl)
	if err != nil {
		return driver.Lease{}, s.classify("claim (grant)", id, err)
	}
	token := s.newToken(ctx)
	won, err := s.claim(ctx, id, token, g.ID)
	if err != nil {
		if isLeaseNotFound(err) {
			err = errors.Join(errors.New("the granted lease expired before the claim"), err)
		}
		// The claim may have been applied: report it.
		return driver.Lease{MachineID: id, Token: leaseToken(g.ID, token)}, s.classify("claim", id, err)
	}
	if !won {
		s.revoke(ctx, g.ID)
		return driver.Lease{}, leasekit.Errorf("etcdlease", driver.ErrConflict, "claim of machine ID %d under %s: the key exists (held by someone else)",
			id, leasekit.Quote(s.opts.Prefix))
	}
	return s.lease(id, g.ID, token, g.TTL), nil
}
