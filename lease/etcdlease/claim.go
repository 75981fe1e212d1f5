package etcdlease

import (
	"context"
	"errors"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/internal/leasekit"
)

var _ lease.Claimer = (*Strategy)(nil)

// Claim leases machine ID id for d if its key does not exist: it grants
// an etcd lease and creates the key on it in one transaction guarded by
// CreateRevision == 0, as Acquire does for each candidate. A key that
// exists (held, or released and within its release hold) is
// [lease.ErrConflict] naming the ID and the prefix, and the granted etcd
// lease is revoked. When the transaction's outcome is unknown, Claim
// returns the lease it may have written beside [lease.ErrRetry], for the
// caller to release.
func (s *Strategy) Claim(ctx context.Context, id int, d time.Duration) (lease.Lease, error) {
	if !leasekit.ValidID(id) {
		return lease.Lease{}, leasekit.Errorf("etcdlease", lease.ErrConfig, "claim: machine ID %d outside 0..%d", id, Capacity-1)
	}
	ttl, err := ttlSeconds(d)
	if err != nil {
		return lease.Lease{}, err
	}
	g, err := s.grant(ctx, ttl)
	if err != nil {
		return lease.Lease{}, s.classify("claim (grant)", id, err)
	}
	token := s.newToken()
	won, err := s.claim(ctx, id, token, g.ID)
	if err != nil {
		if isLeaseNotFound(err) {
			err = errors.Join(errors.New("the granted lease expired before the claim"), err)
		}
		// The claim may have been applied: report it.
		return lease.Lease{MachineID: id, Token: leaseToken(g.ID, token)}, s.classify("claim", id, err)
	}
	if !won {
		s.revoke(ctx, g.ID)
		return lease.Lease{}, leasekit.Errorf("etcdlease", lease.ErrConflict, "claim of machine ID %d under %s: the key exists (held by someone else)",
			id, leasekit.Quote(s.opts.Prefix))
	}
	return s.lease(id, g.ID, token, g.TTL), nil
}
