package lease_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// lateRenewal makes r's strategy renew the way an SQL renewal abandoned
// in flight can: the call ignores its context until apply is closed, then
// its write lands (the lease is extended for a whole duration, whatever
// was done meanwhile), and it reports failure, as a strategy does when its
// context ended during the call. entered is closed when the call starts.
func lateRenewal(r *rig) (entered, apply chan struct{}) {
	entered, apply = make(chan struct{}), make(chan struct{})
	r.s.set(func(f *fake) {
		f.renew = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
			close(entered)
			<-apply
			if _, err := f.mem.Renew(context.Background(), l, d); err == nil {
				r.j.add("late renewal applied")
			}
			return driver.Lease{}, fmt.Errorf("%w: renewal interrupted (test): %w", driver.ErrRetry, context.Canceled)
		}
	})
	return entered, apply
}

// checkReleasedAfter checks that the journal has a release after the late
// renewal was applied, and that no lease is live.
func checkReleasedAfter(t *testing.T, r *rig) {
	t.Helper()
	iApply, _, ok := r.j.find(0, "late renewal applied")
	if !ok {
		t.Fatalf("the late renewal did not apply (test setup):\n%s", r.j)
	}
	if _, _, ok := r.j.find(iApply, "strategy release"); !ok {
		t.Errorf("no release after the late renewal applied:\n%s", r.j)
	}
	if held := r.s.mem.Held(); held != 0 {
		token, exp, _ := r.s.mem.Holder(0)
		t.Errorf("%d leases live after the late renewal: machine ID 0 (token %.8s) until %v from now", held, token, time.Until(exp))
	}
}

// TestCloseReleasesAgainAfterLateRenewal: Close while a renewal is in
// flight releases at once; the abandoned renewal then applies late and
// re-extends the lease (reporting failure); the manager releases again
// once the call has returned, before Close returns.
func TestCloseReleasesAgainAfterLateRenewal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.ReleaseTimeout = 3 * time.Second
		m := r.start()
		entered, apply := lateRenewal(r)
		time.Sleep(30*time.Minute - 10*time.Second)
		<-entered

		t0 := time.Now()
		closed := make(chan error, 1)
		go func() { closed <- m.Close(context.Background()) }()
		synctest.Wait()
		if n := r.j.count("strategy release"); n != 1 || r.s.mem.Held() != 0 {
			t.Fatalf("at Close: %d releases, %d leases live; want the lease released at once", n, r.s.mem.Held())
		}
		select {
		case err := <-closed:
			t.Fatalf("Close returned (%v) before the abandoned renewal did", err)
		default:
		}
		time.Sleep(time.Second) // the renewal's write lands after the release
		close(apply)
		if err := <-closed; err != nil {
			t.Errorf("Close: %v", err)
		}
		if took := time.Since(t0); took != time.Second {
			t.Errorf("Close took %v, want 1s (until the abandoned renewal returned and its lease was released again)", took)
		}
		checkReleasedAfter(t, r)
		if r.f.generating() {
			t.Error("factories enabled after Close")
		}
	})
}

// TestCloseBoundedWhileRenewalHangs: Close does not wait for an abandoned
// renewal longer than ReleaseTimeout; when the call returns later (the
// process still running), its lease is released then.
func TestCloseBoundedWhileRenewalHangs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.ReleaseTimeout = 3 * time.Second
		m := r.start()
		entered, apply := lateRenewal(r)
		time.Sleep(30*time.Minute - 10*time.Second)
		<-entered
		t0 := time.Now()
		if err := m.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
		if took := time.Since(t0); took != 3*time.Second {
			t.Errorf("Close took %v with a renewal that never returns, want the 3s ReleaseTimeout", took)
		}
		time.Sleep(time.Minute)
		close(apply)
		synctest.Wait()
		checkReleasedAfter(t, r)
	})
}

// TestLateRenewalAfterLossReleasedAgain: a renewal that hangs past the safe
// window is abandoned (ErrTimeout) and the lease released before
// re-acquiring; when the hung call finally applies and returns, the lease
// it re-extended is released again.
func TestLateRenewalAfterLossReleasedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		t0 := time.Now()
		m := r.start()
		entered, apply := lateRenewal(r)
		// Re-acquisition fails for now: the lease we gave up is the only
		// one in play.
		r.s.set(func(f *fake) {
			f.acquire = func(context.Context, time.Duration) (driver.Lease, error) {
				return driver.Lease{}, fmt.Errorf("%w (test)", driver.ErrExhausted)
			}
		})
		<-entered
		time.Sleep(time.Until(t0.Add(driver.DefaultLeaseDuration - driver.SafetyMargin)))
		synctest.Wait()
		if lost := r.losses(); len(lost) != 1 || !errors.Is(lost[0], lease.ErrTimeout) {
			t.Fatalf("lost events %v, want ErrTimeout", lost)
		}
		if n := r.j.count("strategy release"); n != 1 || r.s.mem.Held() != 0 {
			t.Fatalf("after the loss: %d releases, %d leases live", n, r.s.mem.Held())
		}
		time.Sleep(time.Minute)
		close(apply)
		synctest.Wait()
		checkReleasedAfter(t, r)
		if m.MachineID() != -1 || !errors.Is(m.Err(), lease.ErrTimeout) {
			t.Errorf("machine ID %d, Err %v while re-acquisition fails", m.MachineID(), m.Err())
		}
		m.Close(context.Background())
	})
}

// TestStartTimeoutReleasesLateReclaim: a reclaim of the state file's lease
// that hangs past the acquire timeout fails Start; when it applies and
// returns later, the lease it extended is released.
func TestStartTimeoutReleasesLateReclaim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
		m := r.start()
		crash(t, r, m)
		apply := make(chan struct{})
		r.s.set(func(f *fake) {
			f.reclaim = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
				<-apply
				nl, err := f.mem.Reclaim(context.Background(), l, d)
				if err == nil {
					r.j.add("late renewal applied")
				}
				// The outcome is unknown to the strategy: it reports the
				// lease it may have written beside the error.
				return nl, fmt.Errorf("%w: interrupted (test): %w", driver.ErrRetry, context.DeadlineExceeded)
			}
		})
		r.s.mem.Expire(0)
		if _, err := lease.Start(r.with(t.Context()), r.s, r.opts); !errors.Is(err, lease.ErrTimeout) {
			t.Fatalf("Start with a hanging reclaim: %v", err)
		}
		close(apply)
		synctest.Wait()
		checkReleasedAfter(t, r)
	})
}
