package lease_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

// TestHandoffGuard: a machine ID taken over from a previous holder whose
// expiry the coordinator reports starts no earlier than that expiry plus
// the skew allowance, even when the coordinator's clock runs ahead of ours.
func TestHandoffGuard(t *testing.T) {
	for _, c := range []struct {
		name    string
		prev    time.Duration // previous holder's expiry relative to our clock
		skew    time.Duration
		wantOff time.Duration // notBefore relative to our clock
	}{
		{"no clock readings", 0, 0, 2 * time.Second},
		{"expired long ago", -time.Hour, 0, -time.Hour + time.Second},
		{"coordinator clock 3s ahead", 3 * time.Second, 0, 4 * time.Second},
		{"wider skew allowance", 3 * time.Second, 2500 * time.Millisecond, 5500 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				off, set := handoffOffset(t, c.skew, func(l *driver.Lease, now time.Time) {
					if c.name != "no clock readings" {
						l.PrevExpiry = now.Add(c.prev).UTC().Round(0)
					} else { // no reading at all: twice the skew on our clock
						l.PrevExpiry, l.CoordinatorNow = time.Time{}, time.Time{}
					}
				})
				if !set || off != c.wantOff {
					t.Errorf("notBefore = now %+v (set %v), want now %+v", off, set, c.wantOff)
				}
			})
		})
	}
}

// TestHandoffGuardCoordinatorNow: a strategy that reports only the
// coordinator's clock (Redis: TIME, no previous expiry) and how long a
// released ID stays taken gets notBefore = CoordinatorNow + HandoffSkew -
// min(margin, ReleaseHold): with Redis's default hold (1s, the default
// skew) this is CoordinatorNow (no wait unless our clock is behind); with
// a hold of 0 (released IDs free at once) the factories wait the skew;
// with a hold beyond the margin (10s) the margin decides, and a skew
// allowance beyond the margin is waited for in part.
func TestHandoffGuardCoordinatorNow(t *testing.T) {
	for _, c := range []struct {
		name    string
		coord   time.Duration // coordinator clock relative to ours
		skew    time.Duration
		hold    time.Duration // Lease.ReleaseHold
		wantOff time.Duration
	}{
		{"clocks agree, default hold", 0, time.Second, time.Second, 0},
		{"coordinator 3s ahead", 3 * time.Second, time.Second, time.Second, 3 * time.Second},
		{"no hold", 0, time.Second, 0, time.Second},
		{"hold below the skew", 0, time.Second, 400 * time.Millisecond, 600 * time.Millisecond},
		{"hold beyond the margin", 0, time.Second, time.Minute, -9 * time.Second},
		{"skew beyond the margin", 0, 12 * time.Second, time.Minute, 2 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				off, set := handoffOffset(t, c.skew, func(l *driver.Lease, now time.Time) {
					l.PrevExpiry = time.Time{}
					l.CoordinatorNow = now.Add(c.coord).UTC().Round(0)
					l.ReleaseHold = c.hold
				})
				if !set || off != c.wantOff {
					t.Errorf("notBefore = now %+v (set %v), want now %+v", off, set, c.wantOff)
				}
			})
		})
	}
}

// handoffOffset starts a manager (inside a synctest bubble) with skew
// allowance skew whose strategy's leases edit changes, given the bubble's
// start time, and returns the factories' notBefore relative to that time
// (set false: none).
func handoffOffset(t *testing.T, skew time.Duration, edit func(l *driver.Lease, now time.Time)) (off time.Duration, set bool) {
	t.Helper()
	r := newRig(t, 512)
	r.opts.HandoffSkew = skew
	now := time.Now()
	r.s.set(func(f *fake) {
		f.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
			l, err := f.mem.Acquire(ctx, d)
			edit(&l, now)
			return l, err
		}
	})
	m := r.start()
	defer m.Close(context.Background())
	_, notBefore, _ := r.f.state()
	return notBefore.Sub(now), !notBefore.IsZero()
}

// bubbleEpoch is a nonce epoch before synctest's fake clock (year 2000).
var bubbleEpoch = time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC)

// TestHandoffGuardRealFactory: with a real nonce factory, the first value
// after a hand-off from a holder whose (skewed) expiry lies ahead of our
// clock carries a timestamp after that expiry plus the skew allowance.
func TestHandoffGuardRealFactory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, err := nonce.New(nonce.Config{Epoch: bubbleEpoch})
		if err != nil {
			t.Fatal(err)
		}
		r := newRig(t, 512)
		r.opts.Factories = []*nonce.Factory{f}
		r.fakes = nil
		prev := time.Now().Add(2 * time.Second).Round(0)
		r.s.set(func(fk *fake) {
			fk.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
				l, err := fk.mem.Acquire(ctx, d)
				l.PrevExpiry = prev
				return l, err
			}
		})
		m := r.start()
		v, err := f.Sortable64()
		if err != nil {
			t.Fatalf("Sortable64: %v", err)
		}
		p := nonce.Split64(v, bubbleEpoch)
		if !p.Time.After(prev.Add(lease.DefaultHandoffSkew)) && !p.Time.Equal(prev.Add(lease.DefaultHandoffSkew)) {
			t.Errorf("first timestamp %v, previous holder's expiry + skew %v", p.Time, prev.Add(time.Second))
		}
		if p.MachineID != 0 {
			t.Errorf("machine ID in the nonce %d", p.MachineID)
		}
		m.Close(context.Background())
		if _, err := f.Sortable64(); err == nil {
			t.Error("factory generates after Close")
		}
	})
}

// TestRealFactoryDeadline: with the manager's goroutine stuck (here in an
// Events hook that blocks, against its documentation) a real nonce factory
// still stops exactly at the end of the safe window, by its own deadline.
func TestRealFactoryDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, err := nonce.New(nonce.Config{Epoch: bubbleEpoch})
		if err != nil {
			t.Fatal(err)
		}
		r := newRig(t, 512)
		r.opts.Factories = []*nonce.Factory{f}
		r.fakes = nil
		unblock := make(chan struct{})
		// A failing check ends the test with the renewal still blocked:
		// unblock it then too, or the bubble never ends.
		release := sync.OnceFunc(func() { close(unblock) })
		defer release()
		r.opts.Events = func(e lease.Event) {
			if e.Kind == lease.EventStart && e.Op == lease.OpRenew {
				<-unblock
			}
		}
		t0 := time.Now()
		m := r.start()
		time.Sleep(driver.DefaultLeaseDuration - driver.SafetyMargin - time.Nanosecond)
		if _, err := f.Counter64(); err != nil {
			t.Fatalf("Counter64 just before the deadline: %v", err)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait() // the factory's own deadline timer runs at this instant
		if _, err := f.Counter64(); err == nil {
			t.Fatalf("Counter64 at the deadline (%v after start) succeeded", time.Since(t0))
		}
		release()
		m.Close(context.Background())
	})
}
