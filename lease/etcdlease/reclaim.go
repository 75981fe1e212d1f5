package etcdlease

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// Reclaim takes back a lease from its machine ID and token alone, as the
// manager's state file keeps them (lease.Options.StateFile), so that a
// process restarted in a crash loop keeps its ID instead of taking a new
// one each time. It grants a fresh etcd lease for d and, in one
// transaction, moves the key to it with a new token, if the key still
// holds l's token; then it revokes the etcd lease the key was on. l's
// token then renews, reclaims and releases nothing: of two processes
// reclaiming one record, the second is told [driver.ErrLost].
//
// It returns [driver.ErrLost] when the key is gone (the lease expired and
// etcd deleted it, or it was released) or holds another token. When the
// transaction's outcome is unknown it returns the lease it may have
// written (MachineID and the new Token) beside [driver.ErrRetry], for the
// caller to release.
func (s *Strategy) Reclaim(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	ttl, err := ttlSeconds(d)
	if err != nil {
		return driver.Lease{}, err
	}
	_, token, err := parseLease(l)
	if err != nil {
		return driver.Lease{}, err
	}
	id, key := l.MachineID, s.Key(l.MachineID)
	g, err := s.grant(ctx, ttl)
	if err != nil {
		return driver.Lease{}, s.classify("reclaim (grant)", id, err)
	}
	next := s.newToken(ctx)
	rctx, cancel := s.request(ctx)
	r, err := s.c.Txn(rctx).If(
		clientv3.Compare(clientv3.Value(key), "=", token),
		clientv3.Compare(clientv3.LeaseValue(key), "!=", 0),
	).Then(clientv3.OpPut(key, next, clientv3.WithLease(g.ID), clientv3.WithPrevKV())).Commit()
	cancel()
	if err != nil {
		return driver.Lease{MachineID: id, Token: leaseToken(g.ID, next)}, s.classify("reclaim", id, err)
	}
	if !r.Succeeded {
		s.revoke(ctx, g.ID)
		return driver.Lease{}, leasekit.Errorf("etcdlease", driver.ErrLost,
			"reclaim of machine ID %d under %s: the key no longer holds the token", id, leasekit.Quote(s.opts.Prefix))
	}
	if prev := prevLease(r); prev != 0 {
		s.revoke(ctx, prev)
	}
	return s.lease(id, g.ID, next, g.TTL), nil
}
