package etcdlease

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/once-go/once/lease/driver"
)

// Release gives l up. If l's key still holds l's token, it moves the key,
// in one transaction, to a fresh etcd lease of [Options.ReleaseHold] with
// the value "released" (or, with a negative ReleaseHold, deletes it), then
// revokes the etcd lease the key was on. So the ID stays taken for the
// hold after its holder stopped, and nothing of l renews, reclaims or
// releases it again. Releasing a lease that expired, was released, taken
// over or reclaimed leaves the key alone, revokes l's etcd lease (it holds
// no key of anyone else), and returns nil. An outcome that is unknown
// wraps [driver.ErrRetry]; releasing again is safe.
func (s *Strategy) Release(ctx context.Context, l driver.Lease) error {
	lid, token, err := parseLease(l)
	if err != nil {
		return nil // not ours to release
	}
	key := s.Key(l.MachineID)
	off := clientv3.OpDelete(key, clientv3.WithPrevKV())
	var hold clientv3.LeaseID
	if secs := s.opts.holdSeconds(); secs > 0 {
		g, err := s.grant(ctx, secs)
		if err != nil {
			return s.classify("release (grant)", l.MachineID, err)
		}
		hold = g.ID
		off = clientv3.OpPut(key, releasedValue, clientv3.WithLease(hold), clientv3.WithPrevKV())
	}
	rctx, cancel := s.request(ctx)
	r, err := s.c.Txn(rctx).If(
		clientv3.Compare(clientv3.Value(key), "=", token),
		clientv3.Compare(clientv3.LeaseValue(key), "!=", 0),
	).Then(off).Commit()
	cancel()
	if err != nil {
		// The key may be on the hold lease now: leave that to expire.
		return s.classify("release", l.MachineID, err)
	}
	if !r.Succeeded {
		if hold != 0 {
			s.revoke(ctx, hold)
		}
		s.revoke(ctx, lid)
		return nil
	}
	// The key was on lid, or on the etcd lease a renewal moved it to.
	if prev := prevLease(r); prev != 0 && prev != lid {
		s.revoke(ctx, prev)
	}
	s.revoke(ctx, lid)
	return nil
}

// prevLease is the etcd lease the key of a successful one-operation
// transaction (a put or delete with WithPrevKV) was attached to before.
func prevLease(r *clientv3.TxnResponse) clientv3.LeaseID {
	if len(r.Responses) != 1 {
		return 0
	}
	if p := r.Responses[0].GetResponsePut(); p != nil && p.PrevKv != nil {
		return clientv3.LeaseID(p.PrevKv.Lease)
	}
	if d := r.Responses[0].GetResponseDeleteRange(); d != nil && len(d.PrevKvs) == 1 {
		return clientv3.LeaseID(d.PrevKvs[0].Lease)
	}
	return 0
}
