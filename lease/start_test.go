package lease_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/internal/leasehook"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

func TestStartActivatesFactories(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		t0 := time.Now()
		m := r.start()
		if got := m.MachineID(); got != 0 {
			t.Errorf("MachineID = %d, want 0", got)
		}
		if m.Err() != nil {
			t.Errorf("Err = %v while held", m.Err())
		}
		id, notBefore, validUntil := r.f.state()
		// The fake reports the previous expiry of an ID never held (the
		// Unix epoch, as SQL's fresh rows): the hand-off bound lies in the
		// past, no wait.
		if id != 0 || notBefore.After(t0.Add(lease.DefaultHandoffSkew-driver.SafetyMargin)) {
			t.Errorf("Activate(%d, %v, _), want machine ID 0 and no hand-off wait", id, notBefore)
		}
		if want := t0.Add(driver.DefaultLeaseDuration - driver.SafetyMargin); !validUntil.Equal(want) {
			t.Errorf("validUntil = send time + %v, want + 8h - 10s", validUntil.Sub(t0))
		}
		if !r.f.generating() {
			t.Error("factory not enabled after Start")
		}
		ev := r.rec.of(lease.EventEnd, lease.OpAcquire)
		if len(ev) != 1 || ev[0].Err != nil || ev[0].TTL != driver.DefaultLeaseDuration || ev[0].MachineID != 0 {
			t.Errorf("acquire end events = %+v", ev)
		}
		if err := m.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
}

func TestAcquireTimeoutLeavesFactoriesUntouched(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.s.set(func(f *fake) {
			f.acquire = func(context.Context, time.Duration) (driver.Lease, error) {
				return driver.Lease{}, fmt.Errorf("%w (test)", driver.ErrExhausted)
			}
		})
		t0 := time.Now()
		m, err := lease.Start(r.with(t.Context()), r.s, r.opts)
		took := time.Since(t0)
		if m != nil || !errors.Is(err, lease.ErrTimeout) || !errors.Is(err, driver.ErrExhausted) {
			t.Fatalf("Start = %v, %v; want ErrTimeout wrapping ErrExhausted", m, err)
		}
		if took != lease.DefaultAcquireTimeout {
			t.Errorf("Start gave up after %v, want exactly the 60s budget", took)
		}
		for _, e := range r.j.entries {
			if !strings.HasPrefix(e.what, "strategy") && !strings.HasPrefix(e.what, "event") {
				t.Errorf("factory touched: %s", e.what)
			}
		}
		// Backoff from 100ms doubling, capped by the budget: about 10 calls.
		if n := r.j.count("strategy acquire"); n < 8 || n > 12 {
			t.Errorf("%d acquire calls in 60s, want about 10", n)
		}
		retries := r.rec.of(lease.EventRetry, lease.OpAcquire)
		for i, e := range retries {
			exp := 100 * time.Millisecond << i
			lo := exp + 1
			if i == len(retries)-1 {
				lo = 0 // capped by what is left of the budget
			}
			if !within(e.Delay, lo, exp+100*time.Millisecond) {
				t.Errorf("retry %d after %v, outside the backoff bounds", i+1, e.Delay)
			}
		}
		if !strings.Contains(err.Error(), "acquire timeout") {
			t.Errorf("message %q does not say what timed out", err)
		}
	})
}

// TestStartNoTimeoutWaitsForAFreeID: a negative AcquireTimeout waits
// until Start's context ends.
func TestStartNoTimeoutWaitsForAFreeID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 1)
		r.s.mem.Steal(0, 10*time.Minute)
		r.opts.AcquireTimeout = -time.Second
		t0 := time.Now()
		m := r.start()
		if took := time.Since(t0); took < 10*time.Minute {
			t.Errorf("held after %v, before the other holder's lease ran out", took)
		}
		m.Close(context.Background())
	})
}

func TestStartConfigErrorAbortsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.s.set(func(f *fake) {
			f.acquire = func(context.Context, time.Duration) (driver.Lease, error) {
				return driver.Lease{}, fmt.Errorf("%w: table once_leases does not exist", lease.ErrConfig)
			}
		})
		t0 := time.Now()
		_, err := lease.Start(r.with(t.Context()), r.s, r.opts)
		if !errors.Is(err, lease.ErrConfig) || time.Since(t0) != 0 || r.j.count("strategy acquire") != 1 {
			t.Errorf("Start = %v after %v and %d calls; want ErrConfig at once", err, time.Since(t0), r.j.count("strategy acquire"))
		}
	})
}

func TestStartRetriesTransientErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		n := 0
		r.s.set(func(f *fake) {
			f.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
				n++
				switch n {
				case 1:
					return driver.Lease{}, errRetry
				case 2:
					return driver.Lease{}, fmt.Errorf("%w (test)", driver.ErrConflict)
				case 3:
					return driver.Lease{MachineID: 7, Token: "short", TTL: 20 * time.Second}, nil
				}
				return f.mem.Acquire(ctx, d)
			}
		})
		m := r.start()
		if m.MachineID() != 0 || n != 4 {
			t.Errorf("machine ID %d after %d calls", m.MachineID(), n)
		}
		// The illegal 20s lease was released, not kept.
		if r.j.count("strategy release") != 1 {
			t.Errorf("the lease with an illegal TTL was not released:\n%s", r.j)
		}
		m.Close(context.Background())
	})
}

func TestStartCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 1)
		r.s.mem.Steal(0, time.Hour)
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		_, err := lease.Start(r.with(ctx), r.s, r.opts)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "before a machine ID was held; last error: ") {
			t.Errorf("Start with an ending context: %v", err)
		}
	})
}

func TestActivateFailureIsConfigError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.f.failNext = errors.New("nonce: clock outside the epoch")
		_, err := lease.Start(r.with(t.Context()), r.s, r.opts)
		if !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), "clock outside the epoch") {
			t.Errorf("Start = %v", err)
		}
		if r.s.mem.Held() != 0 {
			t.Error("lease kept after the factories refused it")
		}
	})
}

func TestOptionsValidation(t *testing.T) {
	ids, err := nonce.New(nonce.Config{})
	if err != nil {
		t.Fatal(err)
	}
	f := []*nonce.Factory{ids}
	for _, c := range []struct {
		opts lease.Options
		want string
	}{
		{lease.Options{}, "Factories is empty"},
		{lease.Options{Factories: []*nonce.Factory{nil}}, "Factories[0] is nil"},
		{lease.Options{Factories: f, LeaseDuration: 29 * time.Second}, "LeaseDuration 29s is below the minimum 30s"},
		{lease.Options{Factories: f, LeaseDuration: -time.Hour}, "LeaseDuration -1h0m0s"},
		{lease.Options{Factories: f, RenewInterval: 10 * time.Second}, "RenewInterval 10s must be longer than 10s"},
		{lease.Options{Factories: f, RenewInterval: -time.Second}, "RenewInterval -1s must be longer"},
		{lease.Options{Factories: f, LeaseDuration: time.Minute, RenewInterval: 50 * time.Second}, "RenewInterval 50s must be shorter than LeaseDuration 1m0s minus 10s"},
		{lease.Options{Factories: f, HandoffSkew: -time.Second}, "HandoffSkew -1s is outside"},
		{lease.Options{Factories: f, HandoffSkew: 2 * time.Minute}, "HandoffSkew 2m0s is outside"},
		{lease.Options{Factories: f, ReleaseTimeout: -time.Second}, "ReleaseTimeout -1s is negative"},
		{lease.Options{Factories: f, LowFreeIDs: 513}, "LowFreeIDs 513 is above the 512 machine IDs"},
		{lease.Options{Factories: f, StateFile: "x"}, "StateFile needs a strategy that can reclaim a lease"},
	} {
		_, err := lease.Start(t.Context(), noReclaim{newFake(&journal{}, 1)}, c.opts)
		if !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "lease: ") {
			t.Errorf("Start(%+v) = %v, want ErrConfig %q", c.opts, err, c.want)
		}
	}
	if _, err := lease.Start(t.Context(), nil, lease.Options{Factories: f}); !errors.Is(err, lease.ErrConfig) {
		t.Errorf("Start(nil strategy) = %v", err)
	}
}

// noReclaim hides fake's Reclaim.
type noReclaim struct{ *fake }

func (noReclaim) Reclaim() {}

// TestOptionsDefaults: the default renew interval, and the production
// minimum lease duration (short leases: start_short_test.go).
func TestOptionsDefaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.LeaseDuration = time.Minute // default interval becomes 30s
		m := r.start()
		time.Sleep(time.Hour)
		synctest.Wait()
		renews := r.rec.of(lease.EventEnd, lease.OpRenew)
		if len(renews) != int(time.Hour/(20*time.Second)) {
			t.Errorf("%d renewals in an hour of 1m leases, want one every 20s (30s - 10s)", len(renews))
		}
		m.Close(context.Background())
	})

	if _, err := lease.Start(leasehook.With(t.Context(), &fakeFactory{j: &journal{}}), newFake(&journal{}, 1), lease.Options{LeaseDuration: 2 * time.Second}); !errors.Is(err, lease.ErrConfig) {
		t.Errorf("2s lease accepted: %v", err)
	}
}

// TestMinimumLeaseDuration: a LeaseDuration of exactly
// driver.MinLeaseDuration is accepted.
func TestMinimumLeaseDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.LeaseDuration = driver.MinLeaseDuration
		m := r.start()
		m.Close(context.Background())
	})
}

// TestOptionsAtTheirLimits: HandoffSkew of exactly a minute and LowFreeIDs
// of exactly 512 are accepted, and an AcquireTimeout of 1ns is a timeout
// like any other (not the negative one's "no timeout").
func TestOptionsAtTheirLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.HandoffSkew = time.Minute
		r.opts.LowFreeIDs = 512
		m := r.start()
		m.Close(context.Background())

		r = newRig(t, 1)
		r.s.mem.Steal(0, time.Hour)
		r.opts.AcquireTimeout = time.Nanosecond
		if _, err := lease.Start(r.with(t.Context()), r.s, r.opts); !errors.Is(err, lease.ErrTimeout) {
			t.Errorf("Start with a 1ns acquire timeout on an exhausted pool: %v, want ErrTimeout", err)
		}
	})
}
