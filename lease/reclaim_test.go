package lease_test

import (
	"context"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/nonce"
)

// reportingReclaim makes r's strategy reclaim as sqllease does: the
// returned lease reports the expiry before the reclaim (PrevExpiry) and
// the coordinator's clock, offset by coordAhead from ours.
func reportingReclaim(r *rig, coordAhead time.Duration) {
	r.s.set(func(f *fake) {
		f.reclaim = func(ctx context.Context, l lease.Lease, d time.Duration) (lease.Lease, error) {
			_, prev, _ := f.mem.Holder(l.MachineID)
			nl, err := f.mem.Reclaim(ctx, l, d)
			if err != nil {
				return nl, err
			}
			nl.PrevExpiry = prev.Add(coordAhead).UTC().Round(0)
			nl.CoordinatorNow = time.Now().Add(coordAhead).UTC().Round(0)
			return nl, nil
		}
	})
}

// bubbleBootClock makes the boot clock the state file reads follow the
// bubble's clock from now on, plus *step; it returns step and restores the
// real boot clock at the end of the test.
func bubbleBootClock(t *testing.T) *time.Duration {
	t0, step := time.Now(), new(time.Duration)
	t.Cleanup(lease.SetBootClock(func() (time.Duration, bool) { return time.Hour + time.Since(t0) + *step, true }))
	return step
}

// noBootClock makes the state file record no boot clock reading, as on a
// system without one: a reclaim is bounded by the coordinator's clock.
func noBootClock(t *testing.T) {
	t.Cleanup(lease.SetBootClock(func() (time.Duration, bool) { return 0, false }))
}

// TestReclaimNeverRepeatsPreviousIncarnation: a process crashes right
// after generating, with its clock 800ms ahead of the coordinator's (within
// the 1s HandoffSkew), and restarts at once with a fresh factory (nothing
// remembered in memory), reclaiming its lease from the state file: every
// timestamp of the new incarnation is above every timestamp the old one
// emitted, and the first one waits at most the skew allowance, not the
// hours the old lease still had to run. With the boot clock, the old clock
// being ahead is a wall clock stepped back between the incarnations: the
// boot clock shows it, and the first value waits for that step only.
func TestReclaimNeverRepeatsPreviousIncarnation(t *testing.T) {
	for _, c := range []struct {
		name      string
		bootClock bool
		ahead     time.Duration
		maxWait   time.Duration
	}{
		{"coordinator clock/old clock ahead 0s", false, 0, lease.DefaultHandoffSkew},
		{"coordinator clock/old clock ahead 800ms", false, 800 * time.Millisecond, lease.DefaultHandoffSkew},
		{"boot clock/old clock ahead 0s", true, 0, time.Millisecond},
		{"boot clock/wall clock stepped back 800ms", true, 800 * time.Millisecond, 801 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ahead := c.ahead
				step := new(time.Duration)
				if c.bootClock {
					step = bubbleBootClock(t)
				} else {
					noBootClock(t)
				}
				r := newRig(t, 512)
				r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
				reportingReclaim(r, 0)
				old, err := nonce.New(nonce.Config{Epoch: bubbleEpoch, Now: func() time.Time { return time.Now().Add(ahead) }})
				if err != nil {
					t.Fatal(err)
				}
				r.opts.Factories = []lease.Factory{old}
				m := r.start()
				var last time.Time
				for range 20000 { // more than one millisecond's worth of counter values
					v, err := old.Counter64()
					if err != nil {
						t.Fatal(err)
					}
					last = nonce.Split64(v, bubbleEpoch).Time
				}
				if v, err := old.Sortable64(); err == nil {
					if ts := nonce.Split64(v, bubbleEpoch).Time; ts.After(last) {
						last = ts
					}
				}
				crash(t, r, m)
				*step = ahead // the boot clock ran on; the wall clock went back

				fresh, err := nonce.New(nonce.Config{Epoch: bubbleEpoch})
				if err != nil {
					t.Fatal(err)
				}
				r.opts.Factories = []lease.Factory{fresh}
				restart := time.Now()
				m = r.start()
				if n := r.j.count("strategy reclaim"); n != 1 || m.MachineID() != 0 {
					t.Fatalf("machine ID %d after %d reclaims, want the old lease reclaimed", m.MachineID(), n)
				}
				for _, gen := range []func() (uint64, error){fresh.Counter64, fresh.Sortable64} {
					v, err := gen()
					if err != nil {
						t.Fatal(err)
					}
					if ts := nonce.Split64(v, bubbleEpoch).Time; !ts.After(last) {
						t.Errorf("new incarnation's timestamp %v, old one emitted up to %v", ts, last)
					}
				}
				if waited := time.Since(restart); waited > c.maxWait+time.Millisecond {
					t.Errorf("first value after a reclaim waited %v, want at most %v", waited, c.maxWait)
				}
				m.Close(context.Background())
			})
		})
	}
}

// TestReclaimExpiredLeaseStartsAtOnce: a lease reclaimed long after it
// expired (nobody took it over) constrains nothing: the factories start
// at once.
func TestReclaimExpiredLeaseStartsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
		reportingReclaim(r, 0)
		m := r.start()
		crash(t, r, m)
		time.Sleep(lease.DefaultLeaseDuration + time.Hour)
		m = r.start()
		_, notBefore, _ := r.f.state()
		if r.j.count("strategy reclaim") != 1 || m.MachineID() != 0 || !notBefore.Before(time.Now().Add(-50*time.Minute)) {
			t.Errorf("machine ID %d, notBefore now %+v; want the expired lease reclaimed without a wait", m.MachineID(), time.Until(notBefore))
		}
		m.Close(context.Background())
	})
}

// TestReclaimCoordinatorClockAhead: the notBefore of a reclaim follows the
// coordinator's clock plus the skew allowance.
func TestReclaimCoordinatorClockAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noBootClock(t)
		r := newRig(t, 512)
		r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
		r.opts.HandoffSkew = 2 * time.Second
		reportingReclaim(r, 3*time.Second)
		m := r.start()
		crash(t, r, m)
		m = r.start()
		if _, notBefore, _ := r.f.state(); !notBefore.Equal(time.Now().Add(5 * time.Second)) {
			t.Errorf("notBefore now %+v, want coordinator's now (+3s) + 2s skew", time.Until(notBefore))
		}
		m.Close(context.Background())
	})
}

// TestReclaimSameBootStartsAtOnce: a process that crashed and restarted on
// the same host and boot had this very clock, so its successor's first
// value does not wait out HandoffSkew (real clocks, not a bubble).
func TestReclaimSameBootStartsAtOnce(t *testing.T) {
	r := newRig(t, 512)
	r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
	reportingReclaim(r, 0)
	old, err := nonce.New(nonce.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r.opts.Factories = []lease.Factory{old}
	m := r.start()
	var last uint64
	for range 20000 {
		if last, err = old.Sortable64(); err != nil {
			t.Fatal(err)
		}
	}
	crash(t, r, m)

	fresh, err := nonce.New(nonce.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r.opts.Factories = []lease.Factory{fresh}
	restart := time.Now()
	m = r.start()
	defer m.Close(context.Background())
	v, err := fresh.Sortable64()
	waited := time.Since(restart)
	if err != nil || r.j.count("strategy reclaim") != 1 {
		t.Fatalf("after the restart: %v, %d reclaims", err, r.j.count("strategy reclaim"))
	}
	if oldTS, newTS := nonce.Split64(last, old.Epoch()).Time, nonce.Split64(v, fresh.Epoch()).Time; !newTS.After(oldTS) {
		t.Errorf("first timestamp %v, the previous incarnation emitted up to %v", newTS, oldTS)
	}
	t.Logf("first value %v after the restart (HandoffSkew %v)", waited, lease.DefaultHandoffSkew)
	if waited > 100*time.Millisecond {
		t.Errorf("first value after a same-boot reclaim waited %v, want well below the %v HandoffSkew", waited, lease.DefaultHandoffSkew)
	}
}

// TestReclaimClockSteppedBack: when the wall clock went back between the
// incarnations (by less than the skew), the boot clock shows it and the
// first timestamp waits for the previous incarnation's clock; a step back
// beyond the skew is bounded by the coordinator's clock, as before.
func TestReclaimClockSteppedBack(t *testing.T) {
	for _, c := range []struct {
		back, want time.Duration
	}{
		{0, time.Millisecond}, // timestamps count whole milliseconds
		{300 * time.Millisecond, 301 * time.Millisecond},
		{5 * time.Second, lease.DefaultHandoffSkew},
	} {
		t.Run("back "+c.back.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				step := bubbleBootClock(t)
				r := newRig(t, 512)
				r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
				reportingReclaim(r, 0)
				m := r.start()
				crash(t, r, m)
				*step = c.back // the boot clock ran on; the wall clock went back
				m = r.start()
				defer m.Close(context.Background())
				if _, notBefore, _ := r.f.state(); !notBefore.Equal(time.Now().Add(c.want)) {
					t.Errorf("notBefore now %+v, want %v", time.Until(notBefore), c.want)
				}
			})
		})
	}
}
