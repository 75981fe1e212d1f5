package lease_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

func TestLeaseLostIdempotentWhileUnleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		m := r.start()
		// Re-acquisition will fail for a while: the pool is exhausted.
		r.s.set(func(f *fake) {
			f.acquire = func(context.Context, time.Duration) (driver.Lease, error) { return driver.Lease{}, driver.ErrExhausted }
		})
		m.LeaseLost("first")
		if r.f.generating() {
			t.Fatal("factories still enabled when LeaseLost returned")
		}
		for range 20 {
			time.Sleep(7 * time.Second)
			m.LeaseLost("again")
			m.LeaseLost("and again")
			synctest.Wait()
		}
		// Each retry's backoff doubles (base 1s, jitter up to 1s) until it
		// reaches the renew interval: a reset would shrink it.
		var delays []time.Duration
		for _, e := range r.rec.of(lease.EventRetry, lease.OpAcquire) {
			delays = append(delays, e.Delay)
		}
		for i := 1; i < len(delays); i++ {
			if delays[i] <= delays[i-1] && delays[i] != driver.DefaultRenewInterval {
				t.Fatalf("backoff reset by repeated loss signals: delays %v", delays)
			}
		}
		if len(delays) == 0 || len(delays) > 8 {
			t.Errorf("retry delays %v in 140s of backoff from 1s", delays)
		}
		if lost := r.losses(); len(lost) != 1 || !errors.Is(lost[0], lease.ErrExternal) {
			t.Errorf("lost events %v, want exactly one (ErrExternal)", lost)
		}
		if n := len(r.rec.of(lease.EventLost, "")); n != 1 {
			t.Errorf("%d lost events, want 1", n)
		}
		if !errors.Is(m.Err(), lease.ErrExternal) || m.MachineID() != -1 {
			t.Errorf("Err %v, machine ID %d while unleased", m.Err(), m.MachineID())
		}
		m.Close(context.Background())
	})
}

// TestRenewHangsPastDeadline: a Renew that ignores its context and never
// returns cannot keep the factories enabled past the safe window, nor keep
// the manager from reporting the loss and re-acquiring on time.
func TestRenewHangsPastDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		unblock := make(chan struct{})
		t0 := time.Now()
		m := r.start()
		r.s.set(func(f *fake) {
			f.renew = func(_ context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
				<-unblock // ignores the context
				return f.mem.Renew(context.Background(), l, d)
			}
		})
		deadline := t0.Add(driver.DefaultLeaseDuration - driver.SafetyMargin)
		if _, _, vu := r.f.state(); !vu.Equal(deadline) {
			t.Fatalf("factories' own deadline %v after start, want %v", vu.Sub(t0), deadline.Sub(t0))
		}
		time.Sleep(time.Until(deadline) - 1)
		if !r.f.generating() {
			t.Fatal("factories stopped before the safe window ended")
		}
		time.Sleep(time.Nanosecond)
		// Let the goroutines woken at the deadline run. Looking at the
		// factories now would race with them: the manager disables them at
		// the deadline and, calls taking no fake time, re-acquires and
		// re-enables them in the same instant. The journal shows the
		// disable, stamped exactly at the deadline (time does not move
		// during the Wait).
		synctest.Wait()
		_, dis, ok := r.j.find(0, "disable")
		if !ok || !dis.at.Equal(deadline) {
			t.Fatalf("manager disabled the factories at %v, want exactly at the deadline:\n%s", dis.at.Sub(t0), r.j)
		}
		lost := r.losses()
		if len(lost) != 1 || !errors.Is(lost[0], lease.ErrTimeout) {
			t.Errorf("lost events %v, want ErrTimeout", lost)
		}
		// Released and re-acquired at once: a lease held for hours is no
		// crash loop.
		if m.MachineID() != 0 || !r.f.generating() {
			t.Errorf("not re-acquired after the hung renewal: machine ID %d\n%s", m.MachineID(), r.j)
		}
		// The hung call finally returns; its stale renewal changes nothing.
		close(unblock)
		synctest.Wait()
		if n := r.s.mem.Held(); n != 1 || m.Err() != nil {
			t.Errorf("%d leases held after the abandoned call returned, Err %v", n, m.Err())
		}
		m.Close(context.Background())
	})
}

func TestCloseReleases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		m := r.start()
		if err := m.Close(context.Background()); err != nil {
			t.Fatalf("Close: %v", err)
		}
		<-m.Done()
		if r.s.mem.Held() != 0 || r.f.generating() || !errors.Is(m.Err(), lease.ErrClosed) || m.MachineID() != -1 {
			t.Errorf("after Close: %d held, generating %v, Err %v", r.s.mem.Held(), r.f.generating(), m.Err())
		}
		ev := r.rec.of(lease.EventEnd, lease.OpRelease)
		if len(ev) != 1 || ev[0].Err != nil || ev[0].MachineID != 0 {
			t.Errorf("release events %+v", ev)
		}
		if err := m.Close(context.Background()); err != nil {
			t.Errorf("second Close: %v", err)
		}
		m.LeaseLost("after close") // no effect, no panic
		if len(r.losses()) != 0 {
			t.Error("lost event on Close")
		}
	})
}

func TestCloseBoundedByReleaseTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.ReleaseTimeout = 3 * time.Second
		m := r.start()
		unblock := make(chan struct{})
		r.s.set(func(f *fake) {
			f.release = func(context.Context, driver.Lease) error { <-unblock; return nil }
		})
		t0 := time.Now()
		err := m.Close(context.Background())
		if took := time.Since(t0); took != 3*time.Second || !errors.Is(err, lease.ErrTimeout) {
			t.Errorf("Close = %v after %v, want ErrTimeout after the 3s release timeout", err, took)
		}
		close(unblock)
	})
}

func TestAcquireCompletingDuringShutdownIsReleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		m := r.start()
		entered := make(chan struct{})
		r.s.set(func(f *fake) {
			f.acquire = func(_ context.Context, d time.Duration) (driver.Lease, error) {
				close(entered)
				time.Sleep(2 * time.Second) // ignores the context, then succeeds
				return f.mem.Acquire(context.Background(), d)
			}
		})
		r.s.mem.Steal(0, time.Hour)
		time.Sleep(30 * time.Minute) // renewal: lost; re-acquisition starts
		<-entered
		if err := m.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
		if _, _, live := r.s.mem.Holder(1); live {
			t.Error("the lease acquired during shutdown was leaked")
		}
		if r.f.generating() {
			t.Error("factories enabled after Close")
		}
	})
}

// TestCloseDisablesBeforeRelease: Close stops the factories before it
// releases the machine ID. Released first, the ID could go to another
// process while this one still generated under it.
func TestCloseDisablesBeforeRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		m := r.start()
		if err := m.Close(context.Background()); err != nil {
			t.Fatalf("Close: %v", err)
		}
		rel, _, ok := r.j.find(0, "strategy release")
		if !ok {
			t.Fatalf("Close released nothing:\n%v", r.j)
		}
		dis, _, ok := r.j.find(0, "disable")
		if !ok || dis > rel {
			t.Errorf("Close released the lease before it disabled the factories:\n%v", r.j)
		}
	})
}

// TestWindowCountsFromRequest: a lease's safe window is counted from when
// its request was sent, not from its reply: a grant whose reply took 5s
// leaves the factories the same deadline, measured from the request, as
// one answered at once. Counted from the reply, the deadline would
// outlast the coordinator's lease by the 5s.
func TestWindowCountsFromRequest(t *testing.T) {
	deadline := func(delay time.Duration) time.Duration {
		var d time.Duration
		synctest.Test(t, func(t *testing.T) {
			r := newRig(t, 512)
			r.s.set(func(f *fake) {
				f.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
					l, err := f.mem.Acquire(ctx, d)
					time.Sleep(delay) // the reply is slow; the grant was made at once
					return l, err
				}
			})
			sent := time.Now()
			r.start()
			_, _, validUntil := r.f.state()
			d = validUntil.Sub(sent)
		})
		return d
	}
	prompt, slow := deadline(0), deadline(5*time.Second)
	if slow != prompt {
		t.Errorf("deadline %v after the request when the reply took 5s, %v when it came at once; want the same", slow, prompt)
	}
}
