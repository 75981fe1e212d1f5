package lease_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// TestJitterRange: a backoff jitter lies in [1ns, base].
func TestJitterRange(t *testing.T) {
	if j := lease.Jitter(1); j != 1 {
		t.Errorf("jitter(1ns) = %v, want 1ns", j)
	}
	seen := map[time.Duration]bool{}
	for range 1000 {
		j := lease.Jitter(3)
		if j < 1 || j > 3 {
			t.Fatalf("jitter(3ns) = %v, outside [1ns, 3ns]", j)
		}
		seen[j] = true
	}
	if len(seen) != 3 {
		t.Errorf("jitter(3ns) drew %v in 1000 draws, want each of 1ns, 2ns, 3ns", seen)
	}
}

// TestStartTimeoutCountsAttempts: Start's ErrTimeout names how many
// attempts it made.
func TestStartTimeoutCountsAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.AcquireTimeout = 3 * time.Second
		n := 0
		r.s.set(func(f *fake) {
			f.acquire = func(context.Context, time.Duration) (driver.Lease, error) {
				n++
				return driver.Lease{}, fmt.Errorf("%w (test)", driver.ErrExhausted)
			}
		})
		_, err := lease.Start(r.with(t.Context()), r.s, r.opts)
		if !errors.Is(err, lease.ErrTimeout) || n < 3 || !strings.Contains(err.Error(), fmt.Sprintf("(%d attempts)", n)) {
			t.Errorf("Start after %d attempts: %v, want ErrTimeout naming them", n, err)
		}
	})
}

// TestAcquireCallDeadlines: Start's attempts share the deadline
// AcquireTimeout after Start; after a loss each attempt gets
// AcquireTimeout from when it is made.
func TestAcquireCallDeadlines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.AcquireTimeout = 10 * time.Second
		t0 := time.Now()
		type call struct {
			at, deadline time.Time
			ok           bool
		}
		var calls []call
		r.s.set(func(f *fake) {
			f.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
				dl, ok := ctx.Deadline()
				calls = append(calls, call{time.Now(), dl, ok})
				if len(calls) == 1 || len(calls) == 3 {
					return driver.Lease{}, errRetry
				}
				return f.mem.Acquire(ctx, d)
			}
		})
		m := r.start()
		r.s.mem.Steal(0, time.Hour)
		time.Sleep(driver.DefaultRenewInterval)
		synctest.Wait()
		if m.MachineID() != 1 || len(calls) != 4 {
			t.Fatalf("machine ID %d after %d calls, want 1 after 4 (test setup)", m.MachineID(), len(calls))
		}
		m.Close(context.Background())
		for i, c := range calls {
			want := t0.Add(10 * time.Second) // Start's budget
			if i >= 2 {
				want = c.at.Add(10 * time.Second) // after the loss
			}
			if !c.ok || !c.deadline.Equal(want) {
				t.Errorf("call %d at %v: deadline %v (set: %v), want %v", i, c.at.Sub(t0), c.deadline.Sub(t0), c.ok, want.Sub(t0))
			}
		}
	})
}

// TestBackoffStreakAcrossLosses: failed attempts after a loss count in
// the manager's streak, so that a lease lost soon after them backs off
// from where they left: after a short-lived lease, two failed attempts
// and another short-lived lease, the next retry waits 8s plus jitter
// (1s base).
func TestBackoffStreakAcrossLosses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		n := 0
		r.s.set(func(f *fake) {
			f.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
				n++
				if n == 2 || n == 3 {
					return driver.Lease{}, errRetry
				}
				return f.mem.Acquire(ctx, d)
			}
		})
		m := r.start()
		r.s.mem.Steal(0, time.Hour)
		time.Sleep(driver.DefaultRenewInterval)
		synctest.Wait()
		if m.MachineID() != 1 {
			t.Fatalf("machine ID %d after the first loss, want 1 (test setup)", m.MachineID())
		}
		r.s.mem.Steal(1, time.Hour)
		time.Sleep(driver.DefaultRenewInterval)
		synctest.Wait()
		m.Close(context.Background())
		retries := r.rec.of(lease.EventRetry, lease.OpAcquire)
		var delays []time.Duration
		for _, e := range retries {
			delays = append(delays, e.Delay)
		}
		want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}
		if len(delays) != len(want) {
			t.Fatalf("retry delays %v, want %v plus jitter", delays, want)
		}
		for i, d := range delays {
			if !within(d, want[i]+1, want[i]+time.Second) {
				t.Errorf("retry delays %v, want %v plus jitter (up to 1s)", delays, want)
				break
			}
		}
	})
}

// TestNoRetryPastTheBudget: an attempt of Start that runs until the end
// of the acquire timeout is not followed by a retry (no pause of 0): Start
// returns ErrTimeout after it.
func TestNoRetryPastTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.AcquireTimeout = 3 * time.Second
		r.s.set(func(f *fake) {
			f.acquire = func(ctx context.Context, _ time.Duration) (driver.Lease, error) {
				<-ctx.Done()
				return driver.Lease{}, fmt.Errorf("%w: %w", driver.ErrRetry, ctx.Err())
			}
		})
		_, err := lease.Start(r.with(t.Context()), r.s, r.opts)
		if !errors.Is(err, lease.ErrTimeout) {
			t.Errorf("Start: %v, want ErrTimeout", err)
		}
		if retries := r.rec.of(lease.EventRetry, lease.OpAcquire); len(retries) != 0 {
			t.Errorf("retries %+v after the budget was spent, want none", retries)
		}
	})
}
