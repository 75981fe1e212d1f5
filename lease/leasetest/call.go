package leasetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
)

// callBound is how long a strategy call may take before the suite reports
// it as hung. Generous on purpose: it catches calls that ignore their
// context, not slow servers.
const callBound = 30 * time.Second

// granted is a lease with the local time its request was sent.
type granted struct {
	driver.Lease
	sent time.Time
}

// expiry is the earliest moment the coordinator may hand the lease to
// someone else: send time plus the reported TTL.
func (g granted) expiry() time.Time { return g.sent.Add(g.TTL) }

// bounded runs fn and fails the test if it does not return within
// callBound of ctx ending (or of the call starting when ctx has no end).
func bounded[T any](t *testing.T, ctx context.Context, what string, fn func(context.Context) (T, error)) (T, error) {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := fn(ctx)
		ch <- result{v, err}
	}()
	limit := time.NewTimer(callBound)
	defer limit.Stop()
	var waitCtx <-chan struct{} = ctx.Done()
	for {
		select {
		case r := <-ch:
			return r.v, r.err
		case <-waitCtx:
			waitCtx = nil
			limit.Reset(callBound)
		case <-limit.C:
			t.Fatalf("%s did not return within %v (context honoured?)", what, callBound)
		}
	}
}

func callAcquire(t *testing.T, ctx context.Context, s driver.Strategy, d time.Duration) (granted, error) {
	t.Helper()
	sent := time.Now()
	l, err := bounded(t, ctx, "Acquire", func(ctx context.Context) (driver.Lease, error) { return s.Acquire(ctx, d) })
	return granted{l, sent}, err
}

func callRenew(t *testing.T, ctx context.Context, s driver.Strategy, l driver.Lease, d time.Duration) (granted, error) {
	t.Helper()
	sent := time.Now()
	nl, err := bounded(t, ctx, "Renew", func(ctx context.Context) (driver.Lease, error) { return s.Renew(ctx, l, d) })
	return granted{nl, sent}, err
}

func callRelease(t *testing.T, ctx context.Context, s driver.Strategy, l driver.Lease) error {
	t.Helper()
	_, err := bounded(t, ctx, "Release", func(ctx context.Context) (struct{}, error) { return struct{}{}, s.Release(ctx, l) })
	return err
}

// transient reports whether err may go away when the call is repeated.
func transient(err error) bool {
	return errors.Is(err, driver.ErrConflict) || errors.Is(err, driver.ErrRetry)
}

// acquire calls Acquire, repeating it (a bounded number of times, with a
// short random pause) while it fails with ErrConflict or ErrRetry.
func acquire(t *testing.T, s driver.Strategy, d time.Duration) (granted, error) {
	t.Helper()
	var err error
	for range 200 {
		var g granted
		g, err = callAcquire(t, t.Context(), s, d)
		if err == nil || !transient(err) {
			return g, err
		}
		time.Sleep(time.Millisecond + rand.N(9*time.Millisecond))
	}
	return granted{}, fmt.Errorf("still failing after 200 attempts: %w", err)
}

// mustAcquire is acquire that fails the test on error.
func mustAcquire(t *testing.T, s driver.Strategy, d time.Duration) granted {
	t.Helper()
	g, err := acquire(t, s, d)
	if err != nil {
		t.Fatalf("Acquire(%v): %v", d, err)
	}
	return g
}

// mustRenew renews l once (repeating on ErrRetry only) and checks that the
// machine ID did not change.
func mustRenew(t *testing.T, s driver.Strategy, l driver.Lease, d time.Duration) granted {
	t.Helper()
	var err error
	for range 20 {
		var g granted
		g, err = callRenew(t, t.Context(), s, l, d)
		if err == nil {
			if g.MachineID != l.MachineID {
				t.Fatalf("Renew changed the machine ID from %d to %d", l.MachineID, g.MachineID)
			}
			return g
		}
		if !errors.Is(err, driver.ErrRetry) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("Renew(machine ID %d, %v): %v", l.MachineID, d, err)
	return granted{}
}
