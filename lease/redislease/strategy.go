package redislease

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// Client is the part of a go-redis v9 client the strategy uses.
// *redis.Client, *redis.ClusterClient, *redis.Ring and every
// redis.UniversalClient satisfy it.
//
// Build the client with ContextTimeoutEnabled (as [Open] does): go-redis
// bounds a command by the context's deadline only then. Without it a call
// may outlive its context by the client's read and write timeouts; the
// lease manager stops waiting at its deadline and releases whatever such a
// call may have claimed once it returns. The strategy itself starts
// nothing that outlives a call.
type Client interface {
	redis.Scripter
	Do(ctx context.Context, args ...any) *redis.Cmd
}

var _ Client = redis.UniversalClient(nil)

// Strategy is a [driver.Strategy] backed by Redis or Valkey. It is safe for
// concurrent use. Create it with [New] (your client) or [Open] (an address).
type Strategy struct {
	c       Client
	opts    Options
	keys    []string // NAME, {NAME}:0 .. {NAME}:511: the acquire scripts' KEYS
	idKeys  []string // {NAME}:0 .. {NAME}:511
	holdMS  int64    // Options.ReleaseHold in whole ms; 0: delete at once
	checked atomic.Bool
	closer  interface{ Close() error }
}

var (
	_ driver.Strategy = (*Strategy)(nil)
	_ driver.Ranged   = (*Strategy)(nil)
)

// New returns a strategy on c. It validates opts (errors wrap
// [driver.ErrConfig]) but does no I/O: the server is verified by [Strategy.Check],
// which the first Acquire or Renew runs when it has not run yet, so an
// unsupported server is reported as [driver.ErrConfig] before any lease is taken.
func New(c Client, opts Options) (*Strategy, error) {
	if c == nil {
		return nil, leasekit.Errorf(pkg, driver.ErrConfig, "nil client")
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if o.WaitReplicas > 0 {
		if err := checkWaitClient(c); err != nil {
			return nil, leasekit.Errorf(pkg, driver.ErrConfig, "%w", err)
		}
	}
	s := &Strategy{c: c, opts: o, holdMS: o.holdMillis()}
	keys := make([]string, 1, Capacity+1)
	keys[0] = o.Name
	for id := range Capacity {
		keys = append(keys, idKey(o.Name, id))
	}
	s.keys, s.idKeys = keys, keys[1:]
	return s, nil
}

// Open connects to a single Redis/Valkey server and returns a strategy that
// owns the connection pool ([Strategy.Close] closes it). dsn is either
// "host:port" or a URL accepted by redis.ParseURL
// ("redis://[user:pass@]host:port/db", "rediss://...", "unix://..."). The
// client is built with ContextTimeoutEnabled so contexts bound socket I/O.
// For Redis Cluster, Sentinel or custom pools build the client yourself and
// call [New].
func Open(dsn string, opts Options) (*Strategy, error) {
	var ro *redis.Options
	if strings.Contains(dsn, "://") {
		var err error
		if ro, err = redis.ParseURL(dsn); err != nil {
			return nil, leasekit.Errorf(pkg, driver.ErrConfig, "bad DSN: %w", err)
		}
	} else {
		if dsn == "" {
			return nil, leasekit.Errorf(pkg, driver.ErrConfig, "empty address")
		}
		ro = &redis.Options{Addr: dsn}
	}
	ro.ContextTimeoutEnabled = true
	c := redis.NewClient(ro)
	s, err := New(c, opts)
	if err != nil {
		c.Close()
		return nil, err
	}
	s.closer = c
	return s, nil
}

// Close closes the client when the strategy was made by [Open]; for a client
// passed to [New] it does nothing (the application owns that client).
func (s *Strategy) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
}

// Name returns "redis-hash" or "redis-key".
func (s *Strategy) Name() string { return "redis-" + s.opts.Mode.String() }

// Mode returns the configured layout.
func (s *Strategy) Mode() Mode { return s.opts.Mode }

// Key returns NAME: the hash key in hash mode, the hash tag of {NAME}:<id>
// in key mode.
func (s *Strategy) Key() string { return s.opts.Name }

// MachineIDs returns the range of machine IDs Acquire and Claim take
// (Options.MachineIDs; 0..511 when it is nil) ([driver.Ranged]).
func (s *Strategy) MachineIDs() driver.IDRange { return *s.opts.MachineIDs }

// Deterministic reports false: acquiring again may yield another ID.
func (s *Strategy) Deterministic() bool { return false }

// Acquire claims a free machine ID of Options.MachineIDs for d (rounded up
// to whole milliseconds; the server clock applies it). Errors wrap
// [driver.ErrExhausted] (every ID of the range held), [driver.ErrConflict] (every candidate raced away),
// [driver.ErrConfig] (unsupported server, an eviction policy that can
// reach lease data, the other mode's data under NAME) or [driver.ErrRetry]
// (transport, timeout, server busy: try again). When the claim was sent
// and its reply lost, the ErrRetry comes with the lease it may have
// claimed (MachineID and Token), for the caller to release.
//
// PrevExpiry is left zero (Redis does not keep an expired lease's expiry),
// but the chosen ID was free on the server's clock at CoordinatorNow, so any
// previous holder's lease had ended by then, and if it was released, it
// was released at least ReleaseHold (reported with the lease) before.
func (s *Strategy) Acquire(ctx context.Context, d time.Duration) (driver.Lease, error) {
	ms, err := millis(d)
	if err != nil {
		return driver.Lease{}, err
	}
	if err := s.ready(ctx, true); err != nil {
		return driver.Lease{}, err
	}
	ids := *s.opts.MachineIDs
	pick, id := -1, ids.Min
	if !s.opts.LowestFirst {
		pick, id = mrand.IntN(1<<30), ids.Min+mrand.IntN(ids.Len())
	}
	for range s.opts.Candidates {
		l, code, next, err := s.claimOnce(ctx, "acquire (script)", id, ms, pick)
		switch {
		case err != nil:
			return l, err
		case code == int64(id):
			return l, nil
		case code == -1:
			return driver.Lease{}, s.errorf(driver.ErrExhausted, "acquire: all %d machine IDs of Options.MachineIDs %v held", ids.Len(), ids)
		case code == -2:
			return driver.Lease{}, s.otherModeError()
		case code == -3 && ids.Contains(int(next)):
			id = int(next)
		default:
			return driver.Lease{}, s.classify(ctx, "acquire (script)", fmt.Errorf("unexpected reply %d, %d", code, next), false)
		}
	}
	return driver.Lease{}, s.errorf(driver.ErrConflict, "acquire: %d candidates taken by racing contenders", s.opts.Candidates)
}

// claimOnce runs the claim script of the mode for candidate id: code is
// id when the ID is now ours (l is the lease), -1 when every ID is held,
// -2 for the other mode's data, -3 when id is held (next: a free ID to
// try, chosen by pick; see the scripts). A failed script returns the
// lease it may have claimed beside the error.
func (s *Strategy) claimOnce(ctx context.Context, op string, id int, ms int64, pick int) (l driver.Lease, code, next int64, err error) {
	script := acquireScript
	if s.opts.Mode == ModeHash {
		script = hashAcquireScript
	}
	token := s.newToken(ctx)
	ids := *s.opts.MachineIDs
	r, ackErr, err := s.run(ctx, script, firstIs(int64(id)), s.keys, id, token, ms, pick, ids.Min, ids.Max)
	if err != nil {
		return claimed(id, token, err), 0, 0, s.classify(ctx, op, err, true)
	}
	code, now, next, err := scriptReply(r)
	if err != nil {
		return claimed(id, token, err), 0, 0, s.classify(ctx, op, err, false)
	}
	if code == int64(id) && ackErr != nil {
		return claimed(id, token, ackErr), 0, 0, s.errorf(driver.ErrRetry, "%s: claimed on the master, but %w", op, ackErr)
	}
	if code == int64(id) {
		l = driver.Lease{MachineID: id, Token: token, TTL: time.Duration(ms) * time.Millisecond,
			CoordinatorNow: now, ReleaseHold: s.releaseHold()}
	}
	return l, code, next, nil
}

// claimed is what a claim (Acquire, Claim, Reclaim) returns beside a
// failed script: the lease it may have written. Only a configuration
// refusal (unknown command, NOPERM, WRONGTYPE: the server never runs the
// script) claims nothing. Any other error may be the reply to a retry
// that go-redis sent (Options.MaxRetries) after a first attempt that the
// server applied and whose reply was lost: a failover's MOVED or
// READONLY, a restart's LOADING, a timeout.
func claimed(id int, token string, err error) driver.Lease {
	if isConfigReply(err) {
		return driver.Lease{}
	}
	return driver.Lease{MachineID: id, Token: token}
}

// Renew extends l for d. A renewal applied twice (a replay after a lost
// reply) succeeds both times. Errors wrap [driver.ErrLost] when the server
// says the lease is not ours (expired, taken over, released and its
// release hold over, its token replaced by [Strategy.Reclaim], or l is
// malformed) and when the server's eviction policy now can reach lease
// data (see [Strategy.Check]), [driver.ErrRetry] otherwise, and
// [driver.ErrConfig] when the server check fails on a first call.
func (s *Strategy) Renew(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	ms, err := millis(d)
	if err != nil {
		return driver.Lease{}, err
	}
	if err := validLease(l); err != nil {
		return driver.Lease{}, err
	}
	if err := ctx.Err(); err != nil {
		return driver.Lease{}, s.errorf(driver.ErrRetry, "%w", context.Cause(ctx))
	}
	if !s.checked.Load() {
		if err := s.Check(ctx); err != nil {
			return driver.Lease{}, err
		}
	}
	script, keys, args := renewScript, []string{s.idKeys[l.MachineID]}, []any{l.Token, ms}
	if s.opts.Mode == ModeHash {
		script, keys, args = hashRenewScript, s.keys[:1], []any{l.MachineID, l.Token, ms}
	}
	op := fmt.Sprintf("renew of ID %d (script)", l.MachineID)
	r, ackErr, err := s.run(ctx, script, firstIs(1), keys, args...)
	if err != nil {
		return driver.Lease{}, s.classify(ctx, op, err, false)
	}
	ok, now, _, err := scriptReply(r)
	if err != nil {
		return driver.Lease{}, s.classify(ctx, op, err, false)
	}
	if ok != 1 {
		return driver.Lease{}, s.errorf(driver.ErrLost, "renew of ID %d: lease no longer held", l.MachineID)
	}
	if ackErr != nil {
		return driver.Lease{}, s.errorf(driver.ErrRetry, "%s: renewed on the master, but %w", op, ackErr)
	}
	// The eviction policy is read again after the renewal, so that the
	// renewal itself is one command: an unsafe policy found now is a loss
	// (the manager disables the factories and releases the lease).
	if err := s.checkEviction(ctx, false); err != nil {
		return driver.Lease{}, err
	}
	l.TTL = time.Duration(ms) * time.Millisecond
	l.CoordinatorNow = now
	l.PrevExpiry = time.Time{}
	l.ReleaseHold = s.releaseHold()
	return l, nil
}

// Release gives l up: it shortens l's lease to [Options.ReleaseHold], so
// the machine ID stays taken that long and then frees itself (with a
// negative ReleaseHold it deletes the lease at once). It only ever touches
// l's own data, matched by its token: releasing a lease that expired, was
// taken over or whose token was replaced is a harmless no-op and returns
// nil. Transport errors wrap [driver.ErrRetry].
//
// Until the hold runs out the lease is still l's: Renew or Reclaim of l
// succeeds and extends it again. The lease manager never renews a lease
// it released, except through a renewal that outlived its deadline and
// reaches the server late, after the release; the manager releases the
// lease again once such a call has returned.
func (s *Strategy) Release(ctx context.Context, l driver.Lease) error {
	if validLease(l) != nil {
		return nil // not ours to release; nothing to do
	}
	if err := ctx.Err(); err != nil {
		return s.errorf(driver.ErrRetry, "release of ID %d: %w", l.MachineID, context.Cause(ctx))
	}
	if s.opts.Mode == ModeHash {
		return s.hashRelease(ctx, l)
	}
	return s.keyRelease(ctx, l)
}

// newToken returns the value of a new lease: a random token and the
// holder, with the key fingerprint ctx carries before it
// (leasekit.HolderToken, leasekit.WithKey). The whole value is the lease's
// token.
func (s *Strategy) newToken(ctx context.Context) string {
	return leasekit.HolderToken(leasekit.NewTokenString(), leasekit.WithKey(s.opts.Holder, driver.KeyFingerprint(ctx)))
}

// releaseHold is the hold leases report: the hold Release applies, or 0
// on a NAME shared with the Elixir library, whose release deletes.
func (s *Strategy) releaseHold() time.Duration {
	if s.opts.shared() {
		return 0
	}
	return time.Duration(s.holdMS) * time.Millisecond
}

// ready runs before every Acquire, Renew and Reclaim: it fails at once
// when ctx has ended, runs the server check when none has passed yet, and
// reads the eviction policy (atStart: no lease is held yet).
func (s *Strategy) ready(ctx context.Context, atStart bool) error {
	if err := ctx.Err(); err != nil {
		return s.errorf(driver.ErrRetry, "%w", context.Cause(ctx))
	}
	if !s.checked.Load() {
		return s.Check(ctx)
	}
	return s.checkEviction(ctx, atStart)
}

// millis converts d to whole milliseconds, rounding up so the granted TTL is
// never below the requested one.
func millis(d time.Duration) (int64, error) {
	if d <= 0 {
		return 0, leasekit.Errorf(pkg, driver.ErrConfig, "lease duration %v is not positive", d)
	}
	return int64((d + time.Millisecond - 1) / time.Millisecond), nil
}

func validLease(l driver.Lease) error {
	if !leasekit.ValidID(l.MachineID) || l.Token == "" {
		return leasekit.Errorf(pkg, driver.ErrLost, "malformed lease (machine ID %d, token of %d bytes)",
			l.MachineID, len(l.Token))
	}
	return nil
}

func idKey(name string, id int) string {
	return "{" + name + "}:" + strconv.Itoa(id)
}
