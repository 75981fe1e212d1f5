package redislease

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease"
)

// Client is the part of a go-redis v9 client the strategy uses.
// *redis.Client, *redis.ClusterClient, *redis.Ring and every
// redis.UniversalClient satisfy it.
//
// go-redis bounds a call by the context's deadline only when the client was
// built with ContextTimeoutEnabled; the strategy additionally stops waiting
// when the context ends, so a call never outlives its context (the command
// itself then ends at the client's read timeout).
type Client interface {
	redis.Scripter
	Do(ctx context.Context, args ...any) *redis.Cmd
	Pipelined(ctx context.Context, fn func(redis.Pipeliner) error) ([]redis.Cmder, error)
}

var _ Client = redis.UniversalClient(nil)

// Strategy is a [lease.Strategy] backed by Redis or Valkey. It is safe for
// concurrent use. Create it with [New] (your client) or [Open] (an address).
type Strategy struct {
	c       Client
	opts    Options
	keys    []string // hash mode: nil; key mode: NAME, {NAME}:0 .. {NAME}:511
	idKeys  []string // {NAME}:0 .. {NAME}:511 (both modes: conflict checks)
	holdMS  int64    // Options.ReleaseHold in whole ms; 0: delete at once
	checked atomic.Bool
	closer  interface{ Close() error }
}

var _ lease.Strategy = (*Strategy)(nil)

// New returns a strategy on c. It validates opts (errors wrap
// [lease.ErrConfig]) but does no I/O: the server is verified by [Strategy.Check],
// which the first Acquire or Renew runs when it has not run yet, so an
// unsupported server is reported as [lease.ErrConfig] before any lease is taken.
func New(c Client, opts Options) (*Strategy, error) {
	if c == nil {
		return nil, fmt.Errorf("redislease: nil client: %w", lease.ErrConfig)
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Strategy{c: c, opts: o, holdMS: o.holdMillis()}
	keys := make([]string, 1, Capacity+1)
	keys[0] = o.Name
	for id := range Capacity {
		keys = append(keys, idKey(o.Name, id))
	}
	s.idKeys = keys[1:]
	if o.Mode == ModeKey {
		s.keys = keys
	}
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
			return nil, fmt.Errorf("redislease: bad DSN: %w: %w", lease.ErrConfig, err)
		}
	} else {
		if dsn == "" {
			return nil, fmt.Errorf("redislease: empty address: %w", lease.ErrConfig)
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

// Deterministic reports false: acquiring again may yield another ID.
func (s *Strategy) Deterministic() bool { return false }

// Acquire claims a free machine ID for d (rounded up to whole milliseconds;
// the server clock applies it). Errors wrap [lease.ErrExhausted] (every ID
// held), [lease.ErrConflict] (hash mode: every candidate raced away),
// [lease.ErrConfig] (unsupported server, the other mode's data under NAME) or
// [lease.ErrRetry] (transport, timeout, server busy: try again).
//
// PrevExpiry is left zero (Redis does not keep an expired lease's expiry),
// but the chosen ID was free on the server's clock at CoordinatorNow, so any
// previous holder's lease had ended by then, and if it was released, it
// was released at least ReleaseHold (reported with the lease) before.
func (s *Strategy) Acquire(ctx context.Context, d time.Duration) (lease.Lease, error) {
	ms, err := millis(d)
	if err != nil {
		return lease.Lease{}, err
	}
	if err := s.ensureChecked(ctx); err != nil {
		return lease.Lease{}, err
	}
	// The commands run detached from ctx (bounded by detachedLimit and the
	// client's timeouts): when ctx ends first, Acquire returns ErrRetry at
	// once, and a claim the server applied anyway is released, not leaked.
	return bounded(ctx, func() (lease.Lease, error) {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), detachedLimit)
		defer cancel()
		if s.opts.Mode == ModeHash {
			return s.hashAcquire(dctx, ms)
		}
		return s.keyAcquire(dctx, ms)
	}, s.releaseAbandoned)
}

// detachedLimit bounds an acquisition that outlives its caller's context.
const detachedLimit = time.Minute

// releaseAbandoned gives back a lease whose Acquire completed after the
// caller's context ended: the caller saw ErrRetry and will never use it.
// Nobody generated with it, so there is nothing to hold the ID for: it is
// deleted at once.
func (s *Strategy) releaseAbandoned(l lease.Lease, err error) {
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), abandonedReleaseTimeout)
	defer cancel()
	_ = s.release(ctx, l, 0)
}

// abandonedReleaseTimeout bounds the release of an abandoned acquisition.
const abandonedReleaseTimeout = 10 * time.Second

// Renew extends l for d. A renewal applied twice (a replay after a lost
// reply) succeeds both times. Errors wrap [lease.ErrLost] when the server
// says the lease is not ours (expired, taken over, released and its
// release hold over, or l is malformed), [lease.ErrRetry] otherwise, and
// [lease.ErrConfig] when the server check (see [Strategy.Check]) fails on
// a first call.
func (s *Strategy) Renew(ctx context.Context, l lease.Lease, d time.Duration) (lease.Lease, error) {
	ms, err := millis(d)
	if err != nil {
		return lease.Lease{}, err
	}
	if err := validLease(l); err != nil {
		return lease.Lease{}, err
	}
	if err := s.ensureChecked(ctx); err != nil {
		return lease.Lease{}, err
	}
	return bounded(ctx, func() (lease.Lease, error) {
		if s.opts.Mode == ModeHash {
			return s.hashRenew(ctx, l, ms)
		}
		return s.keyRenew(ctx, l, ms)
	}, nil)
}

// Release gives l up: it shortens l's lease to [Options.ReleaseHold], so
// the machine ID stays taken that long and then frees itself (with a
// negative ReleaseHold it deletes the lease at once). It only ever touches
// l's own data, matched by its token: releasing a lease that expired or
// was taken over is a harmless no-op and returns nil. Transport errors
// wrap [lease.ErrRetry].
//
// Until the hold runs out the lease is still l's: Renew or Reclaim of l
// succeeds and extends it again. The lease manager never renews a lease
// it released, except through a renewal it abandoned (timed out) that
// reaches the server late, after the release; the manager releases the
// lease again once such a call has returned (see lease.Manager.Close), so
// it stays extended only if the server applies the renewal after that
// too (the same window a SQL renewal that commits late has).
func (s *Strategy) Release(ctx context.Context, l lease.Lease) error {
	return s.release(ctx, l, s.holdMS)
}

// release shortens l to holdMS milliseconds, or deletes it when holdMS is 0.
func (s *Strategy) release(ctx context.Context, l lease.Lease, holdMS int64) error {
	if validLease(l) != nil {
		return nil // not ours to release; nothing to do
	}
	_, err := bounded(ctx, func() (struct{}, error) {
		if s.opts.Mode == ModeHash {
			return struct{}{}, s.hashRelease(ctx, l, holdMS)
		}
		return struct{}{}, s.keyRelease(ctx, l, holdMS)
	}, nil)
	return err
}

// releaseHold is the hold leases report.
func (s *Strategy) releaseHold() time.Duration { return time.Duration(s.holdMS) * time.Millisecond }

// bounded runs fn but returns as soon as ctx ends, whatever the client's
// timeout settings. An abandoned fn finishes in the background; its result
// then goes to abandoned (when not nil).
func bounded[T any](ctx context.Context, fn func() (T, error), abandoned func(T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, fmt.Errorf("redislease: %w: %w", lease.ErrRetry, err)
	}
	if ctx.Done() == nil {
		return fn()
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := fn()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		if abandoned != nil {
			go func() {
				r := <-ch
				abandoned(r.v, r.err)
			}()
		}
		return zero, fmt.Errorf("redislease: %w: %w", lease.ErrRetry, context.Cause(ctx))
	}
}

// millis converts d to whole milliseconds, rounding up so the granted TTL is
// never below the requested one.
func millis(d time.Duration) (int64, error) {
	if d <= 0 {
		return 0, fmt.Errorf("redislease: lease duration %v is not positive: %w", d, lease.ErrConfig)
	}
	return int64((d + time.Millisecond - 1) / time.Millisecond), nil
}

func validLease(l lease.Lease) error {
	if l.MachineID < 0 || l.MachineID >= Capacity || l.Token == "" {
		return fmt.Errorf("redislease: malformed lease (machine ID %d, token of %d bytes): %w",
			l.MachineID, len(l.Token), lease.ErrLost)
	}
	return nil
}

// newToken returns 16 random bytes, base64url without padding (22 chars).
func newToken() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// startOffset is where the search for a free ID begins.
func (s *Strategy) startOffset() int {
	if s.opts.LowestFirst {
		return 0
	}
	return mrand.IntN(Capacity)
}

func idKey(name string, id int) string {
	return "{" + name + "}:" + strconv.Itoa(id)
}
