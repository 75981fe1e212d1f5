package lease_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/nonce"
)

type ctxKey struct{}

// TestStartContextBoundsStartOnly: once Start has returned, ending its
// context changes nothing. The factory keeps generating across renewals,
// the strategy calls still see the context's values, and the lease is
// held until Close, which releases it.
func TestStartContextBoundsStartOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		seen := make(chan any, 16)
		r.s.set(func(f *fake) {
			f.renew = func(ctx context.Context, l lease.Lease, d time.Duration) (lease.Lease, error) {
				seen <- ctx.Value(ctxKey{})
				return f.mem.Renew(ctx, l, d)
			}
		})
		ids, err := nonce.New(nonce.Config{Epoch: bubbleEpoch})
		if err != nil {
			t.Fatal(err)
		}
		r.opts.Factories = []lease.Factory{ids}
		ctx, cancel := context.WithCancel(context.WithValue(t.Context(), ctxKey{}, "request-scoped value"))
		m, err := lease.Start(ctx, r.s, r.opts)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(context.Background())
		cancel()
		for i := range 3 {
			synctest.Wait()
			if _, err := ids.Counter64(); err != nil {
				t.Fatalf("%d renewal periods after Start's context ended: %v", i, err)
			}
			if m.Err() != nil || m.MachineID() != 0 {
				t.Fatalf("after Start's context ended: Err %v, machine ID %d", m.Err(), m.MachineID())
			}
			time.Sleep(lease.DefaultRenewInterval)
		}
		select {
		case <-m.Done():
			t.Fatal("Done closed after Start's context ended")
		default:
		}
		if n := len(seen); n < 2 {
			t.Fatalf("%d renewals in 90 minutes", n)
		}
		for range len(seen) {
			if v := <-seen; v != "request-scoped value" {
				t.Errorf("renewal context value %v, want Start's context's value", v)
			}
		}
		if err := m.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := ids.Counter64(); !errors.Is(err, nonce.ErrDisabled) || r.s.mem.Held() != 0 || !errors.Is(m.Err(), lease.ErrClosed) {
			t.Errorf("after Close: generate %v, %d held, Err %v", err, r.s.mem.Held(), m.Err())
		}
	})
}

// TestStartContextEndedBeforeStart: a context that has already ended fails
// Start, and nothing is held.
func TestStartContextEndedBeforeStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		m, err := lease.Start(ctx, r.s, r.opts)
		if m != nil || !errors.Is(err, context.Canceled) {
			t.Fatalf("Start = %v, %v; want context.Canceled", m, err)
		}
		if r.s.mem.Held() != 0 || r.f.generating() {
			t.Errorf("%d held, generating %v after a canceled Start", r.s.mem.Held(), r.f.generating())
		}
	})
}

// TestStartCanceledDuringAcquire: Start's context ends while an Acquire
// that ignores its context is still running; the Acquire then claims an
// ID. Start fails, and the claim is released by the time Start returns.
func TestStartCanceledDuringAcquire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.s.set(func(f *fake) {
			f.acquire = func(ctx context.Context, d time.Duration) (lease.Lease, error) {
				<-ctx.Done()
				time.Sleep(50 * time.Millisecond) // a reply already on its way
				l, err := f.mem.Acquire(context.Background(), d)
				f.j.add("claimed")
				return l, err
			}
		})
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		m, err := lease.Start(ctx, r.s, r.opts)
		if m != nil || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Start = %v, %v; want context.DeadlineExceeded", m, err)
		}
		if claims, held := r.j.count("claimed"), r.s.mem.Held(); claims != 1 || held != 0 || r.f.generating() {
			t.Fatalf("when Start returned: %d claims made, %d held, generating %v; want the claim made and released", claims, held, r.f.generating())
		}
	})
}
