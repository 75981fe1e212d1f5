package etcdlease

import (
	"context"
	"errors"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// Strategy is a [driver.Strategy] backed by etcd. It is safe for concurrent
// use. Create it with [New].
type Strategy struct {
	c    *clientv3.Client
	opts Options
}

var (
	_ driver.Strategy  = (*Strategy)(nil)
	_ driver.Reclaimer = (*Strategy)(nil)
	_ driver.Ranged    = (*Strategy)(nil)
)

// New returns a strategy on c, the application's client (its endpoints,
// TLS and credentials are used as they are; closing it is the
// application's business). It validates opts (errors wrap
// [driver.ErrConfig]) but does no I/O; [Strategy.Check] verifies access.
func New(c *clientv3.Client, opts Options) (*Strategy, error) {
	if c == nil {
		return nil, leasekit.Errorf("etcdlease", driver.ErrConfig, "nil client")
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Strategy{c: c, opts: o}, nil
}

// Name returns "etcd".
func (s *Strategy) Name() string { return "etcd" }

// MachineIDs returns the range of machine IDs Acquire and Claim take
// (Options.MachineIDs; 0..511 when it is nil) ([driver.Ranged]).
func (s *Strategy) MachineIDs() driver.IDRange { return *s.opts.MachineIDs }

// Deterministic reports false: acquiring again may yield another ID.
func (s *Strategy) Deterministic() bool { return false }

// Prefix returns the key prefix.
func (s *Strategy) Prefix() string { return s.opts.Prefix }

// Key returns the key of machine ID id: the prefix and the decimal ID.
func (s *Strategy) Key(id int) string { return s.opts.Prefix + strconv.Itoa(id) }

// Check reads the key range once: it reports an unreachable cluster as
// [driver.ErrRetry] and missing permissions as [driver.ErrConfig].
func (s *Strategy) Check(ctx context.Context) error {
	rctx, cancel := s.request(ctx)
	defer cancel()
	if _, err := s.c.Get(rctx, s.opts.Prefix+"0", clientv3.WithRange(s.rangeEnd()), clientv3.WithCountOnly()); err != nil {
		return s.classify("check", -1, err)
	}
	return nil
}

// Acquire claims a free machine ID for d (rounded up to whole seconds;
// etcd may grant more, at least its minimum TTL, and reports what it
// granted), among Options.MachineIDs. Errors wrap [driver.ErrExhausted]
// (the keys of every ID of the range exist),
// [driver.ErrConflict] (racing contenders took every candidate),
// [driver.ErrConfig] or [driver.ErrRetry] (see the package documentation).
// When no key was won the granted etcd lease is revoked. When the outcome
// of a claim is unknown, Acquire returns that claim (MachineID and Token
// set) beside [driver.ErrRetry], for the caller to release.
func (s *Strategy) Acquire(ctx context.Context, d time.Duration) (driver.Lease, error) {
	ttl, err := ttlSeconds(d)
	if err != nil {
		return driver.Lease{}, err
	}
	free, err := s.free(ctx)
	if err != nil {
		return driver.Lease{}, s.classify("acquire (list)", -1, err)
	}
	if len(free) == 0 {
		return driver.Lease{}, leasekit.Errorf("etcdlease", driver.ErrExhausted, "acquire under %s: all %d machine IDs of Options.MachineIDs %v held",
			leasekit.Quote(s.opts.Prefix), s.opts.MachineIDs.Len(), *s.opts.MachineIDs)
	}
	g, err := s.grant(ctx, ttl)
	if err != nil {
		return driver.Lease{}, s.classify("acquire (grant)", -1, err)
	}
	token := s.newToken(ctx)
	tried := leasekit.Candidates(free, s.opts.Candidates, s.opts.LowestFirst)
	for _, id := range tried {
		won, err := s.claim(ctx, id, token, g.ID)
		if err != nil {
			if isLeaseNotFound(err) {
				err = errors.Join(errors.New("the granted lease expired before the claim"), err)
			}
			// The claim may have been applied: report it.
			return driver.Lease{MachineID: id, Token: leaseToken(g.ID, token)}, s.classify("acquire (claim)", id, err)
		}
		if won {
			return s.lease(id, g.ID, token, g.TTL), nil
		}
	}
	s.revoke(ctx, g.ID)
	return driver.Lease{}, leasekit.Errorf("etcdlease", driver.ErrConflict, "acquire under %s: contenders took all %d candidates",
		leasekit.Quote(s.opts.Prefix), len(tried))
}

// lease is the lease of machine ID id: key holding token on etcd lease
// lid, granted for ttl seconds.
func (s *Strategy) lease(id int, lid clientv3.LeaseID, token string, ttl int64) driver.Lease {
	return driver.Lease{MachineID: id, Token: leaseToken(lid, token), TTL: time.Duration(ttl) * time.Second,
		ReleaseHold: s.opts.releaseHold()}
}

// Renew extends l: it sends one keep-alive (KeepAliveOnce) for l's etcd
// lease, checks that l's key still holds l's token on it, and reports the
// TTL etcd reports. Replaying a renewal succeeds. Errors wrap
// [driver.ErrLost] (the etcd lease is gone, or the key is gone or holds
// another token), [driver.ErrRetry] (unknown outcome) or [driver.ErrConfig].
// If d is longer than the etcd lease's TTL, the key moves to a new etcd
// lease of TTL d (see the package documentation); a renewal of the lease
// from before such a move (a replay) finds the key on its new etcd lease
// by its token and renews that one.
func (s *Strategy) Renew(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	ttl, err := ttlSeconds(d)
	if err != nil {
		return driver.Lease{}, err
	}
	lid, token, err := parseLease(l)
	if err != nil {
		return driver.Lease{}, err
	}
	id, key := l.MachineID, s.Key(l.MachineID)
	// Keep-alive first: a renewal whose reply is lost has then been
	// applied, and its replay succeeds.
	ka, kaErr := s.keepAlive(ctx, lid)
	if kaErr != nil && !isLeaseNotFound(kaErr) {
		return driver.Lease{}, s.renewError(id, kaErr)
	}
	cur, err := s.holder(ctx, key, token)
	if err != nil {
		return driver.Lease{}, s.renewError(id, err)
	}
	switch {
	case cur == lid && kaErr != nil:
		// Expired: etcd revokes it (and deletes the key) on its next tick.
		return driver.Lease{}, s.renewError(id, kaErr)
	case cur != lid:
		// An earlier renewal moved the key to a longer etcd lease and its
		// reply was lost: the token says the key is still ours.
		if ka, err = s.keepAlive(ctx, cur); err != nil {
			return driver.Lease{}, s.renewError(id, err)
		}
	}
	granted := ka.TTL
	if granted < ttl {
		if cur, granted, err = s.move(ctx, key, token, cur, ttl); err != nil {
			return driver.Lease{}, s.classify("renew (new lease)", id, err)
		}
	}
	return s.lease(id, cur, token, granted), nil
}

// keepAlive sends one keep-alive for lid.
func (s *Strategy) keepAlive(ctx context.Context, lid clientv3.LeaseID) (*clientv3.LeaseKeepAliveResponse, error) {
	rctx, cancel := s.request(ctx)
	defer cancel()
	return s.c.KeepAliveOnce(rctx, lid)
}

// errNotHeld is returned by holder when the key is gone or holds another
// token.
type errNotHeld struct{ why string }

func (e errNotHeld) Error() string { return e.why }

// renewError maps a renewal failure: a key that is not ours and an etcd
// lease that does not exist are losses, the rest is classified.
func (s *Strategy) renewError(id int, err error) error {
	var nh errNotHeld
	switch {
	case errors.As(err, &nh):
		return leasekit.Errorf("etcdlease", driver.ErrLost, "renew of machine ID %d under %s: %s", id, leasekit.Quote(s.opts.Prefix), nh.why)
	case isLeaseNotFound(err):
		return leasekit.Errorf("etcdlease", driver.ErrLost, "renew of machine ID %d under %s: etcd lease not found (expired or revoked): %w",
			id, leasekit.Quote(s.opts.Prefix), err)
	}
	return s.classify("renew", id, err)
}

// holder reads key and returns the etcd lease it is attached to, if it
// holds token.
func (s *Strategy) holder(ctx context.Context, key, token string) (clientv3.LeaseID, error) {
	rctx, cancel := s.request(ctx)
	defer cancel()
	r, err := s.c.Get(rctx, key)
	if err != nil {
		return 0, err
	}
	switch {
	case len(r.Kvs) == 0:
		return 0, errNotHeld{"the key no longer exists"}
	case string(r.Kvs[0].Value) != token:
		return 0, errNotHeld{"the key holds another token"}
	case r.Kvs[0].Lease == 0:
		return 0, errNotHeld{"the key is not attached to an etcd lease"}
	}
	return clientv3.LeaseID(r.Kvs[0].Lease), nil
}

// move attaches key (holding token, on etcd lease old) to a new etcd lease
// of ttl seconds and revokes old. If the transaction fails the key was
// changed by someone else meanwhile: ErrRetry, and the next renewal tells
// whether the lease is lost. If its outcome is unknown the new etcd lease
// is left to expire: the key may be attached to it, and the next renewal
// finds it there.
func (s *Strategy) move(ctx context.Context, key, token string, old clientv3.LeaseID, ttl int64) (clientv3.LeaseID, int64, error) {
	g, err := s.grant(ctx, ttl)
	if err != nil {
		return 0, 0, err
	}
	rctx, cancel := s.request(ctx)
	r, err := s.c.Txn(rctx).If(
		clientv3.Compare(clientv3.Value(key), "=", token),
		clientv3.Compare(clientv3.LeaseValue(key), "=", old),
	).Then(clientv3.OpPut(key, token, clientv3.WithLease(g.ID))).Commit()
	cancel()
	if err != nil {
		return 0, 0, err
	}
	if !r.Succeeded {
		s.revoke(ctx, g.ID)
		return 0, 0, errors.New("the key changed while moving it to a longer etcd lease")
	}
	s.revoke(ctx, old) // it has no key any more
	return g.ID, g.TTL, nil
}

// free lists the machine IDs of Options.MachineIDs whose keys do not exist.
func (s *Strategy) free(ctx context.Context) ([]int, error) {
	rctx, cancel := s.request(ctx)
	defer cancel()
	// Keys whose suffix starts with a digit: [prefix+"0", prefix+":").
	r, err := s.c.Get(rctx, s.opts.Prefix+"0", clientv3.WithRange(s.rangeEnd()), clientv3.WithKeysOnly())
	if err != nil {
		return nil, err
	}
	var held [Capacity]bool
	for _, kv := range r.Kvs {
		if id, ok := leasekit.ParseID(string(kv.Key[len(s.opts.Prefix):])); ok {
			held[id] = true
		}
	}
	ids := *s.opts.MachineIDs
	free := make([]int, 0, ids.Len())
	for id, h := range held {
		if !h && ids.Contains(id) {
			free = append(free, id)
		}
	}
	return free, nil
}

// rangeEnd ends the range of keys prefix+digits (':' follows '9').
func (s *Strategy) rangeEnd() string { return s.opts.Prefix + ":" }

// grant grants an etcd lease of ttl seconds.
func (s *Strategy) grant(ctx context.Context, ttl int64) (*clientv3.LeaseGrantResponse, error) {
	rctx, cancel := s.request(ctx)
	defer cancel()
	g, err := s.c.Grant(rctx, ttl)
	if err == nil && g.TTL <= 0 {
		err = errors.New("etcd granted a lease with a TTL <= 0")
	}
	return g, err
}

// claim creates id's key, value token, on etcd lease lid if the key does
// not exist; it reports whether it did.
func (s *Strategy) claim(ctx context.Context, id int, token string, lid clientv3.LeaseID) (bool, error) {
	rctx, cancel := s.request(ctx)
	defer cancel()
	key := s.Key(id)
	r, err := s.c.Txn(rctx).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, token, clientv3.WithLease(lid))).Commit()
	if err != nil {
		return false, err
	}
	return r.Succeeded, nil
}

// revoke revokes lid, best effort (an etcd lease left behind holds no
// key and expires by itself), within ctx.
func (s *Strategy) revoke(ctx context.Context, lid clientv3.LeaseID) {
	rctx, cancel := s.request(ctx)
	defer cancel()
	_, _ = s.c.Revoke(rctx, lid)
}

// request derives the context of one etcd request: leader required,
// bounded by RequestTimeout.
func (s *Strategy) request(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx = clientv3.WithRequireLeader(ctx)
	if s.opts.RequestTimeout > 0 {
		return context.WithTimeout(ctx, s.opts.RequestTimeout)
	}
	return context.WithCancel(ctx)
}
