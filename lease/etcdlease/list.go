package etcdlease

import (
	"context"
	"slices"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

var _ driver.Lister = (*Strategy)(nil)

// List returns the machine IDs held under the prefix, ascending: every key
// prefix+<id> that exists, read in one range request, with the remaining
// TTL of its etcd lease (TimeToLive, one request per etcd lease; whole
// seconds, rounded down by etcd; 0 for a key on no etcd lease, which this
// package never writes), the holder recorded in its value and the key
// fingerprint before it (Slot.Fingerprint, "" when none), and Token in
// the form [Strategy.Release] takes (the etcd lease ID and the value): it
// releases exactly that lease and leaves a later holder's alone. A key
// whose etcd lease ended between the two reads is free and not listed. A
// released key, held for ReleaseHold with the value "released", is listed
// with no holder; releasing it does nothing (it frees itself when its
// hold ends).
//
// Errors wrap [driver.ErrRetry] (unknown outcome) or [driver.ErrConfig]
// (permissions).
func (s *Strategy) List(ctx context.Context) ([]driver.Slot, error) {
	rctx, cancel := s.request(ctx)
	r, err := s.c.Get(rctx, s.opts.Prefix+"0", clientv3.WithRange(s.rangeEnd()))
	cancel()
	if err != nil {
		return nil, s.classify("list", -1, err)
	}
	ttls := map[clientv3.LeaseID]int64{} // -1: the etcd lease has ended
	slots := make([]driver.Slot, 0, len(r.Kvs))
	for _, kv := range r.Kvs {
		id, ok := leasekit.ParseID(string(kv.Key[len(s.opts.Prefix):]))
		if !ok {
			continue
		}
		v, lid := string(kv.Value), clientv3.LeaseID(kv.Lease)
		holder, fp := leasekit.SplitKey(leasekit.HolderOf(v))
		slot := driver.Slot{MachineID: id, Holder: holder, Fingerprint: fp, Token: leaseToken(lid, v)}
		if lid != 0 {
			ttl, seen := ttls[lid]
			if !seen {
				if ttl, err = s.timeToLive(ctx, lid); err != nil {
					return nil, s.classify("list (TimeToLive)", id, err)
				}
				ttls[lid] = ttl
			}
			if ttl < 0 {
				continue
			}
			slot.TTL = time.Duration(ttl) * time.Second
		}
		slots = append(slots, slot)
	}
	slices.SortFunc(slots, func(a, b driver.Slot) int { return a.MachineID - b.MachineID })
	return slots, nil
}

// timeToLive returns the remaining TTL of lid in seconds, -1 when it has
// ended.
func (s *Strategy) timeToLive(ctx context.Context, lid clientv3.LeaseID) (int64, error) {
	rctx, cancel := s.request(ctx)
	defer cancel()
	r, err := s.c.TimeToLive(rctx, lid)
	switch {
	case isLeaseNotFound(err):
		return -1, nil
	case err != nil:
		return 0, err
	}
	return max(r.TTL, -1), nil
}
