package lease_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease/driver"
)

// TestClockCheckLogs: a fresh lease whose coordinator clock reading
// (taken as of the middle of the request) is more than HandoffSkew away
// from ours, either way, logs a WARN; exactly HandoffSkew away does not.
// A hand-off guard that makes the factories wait logs an INFO; one that
// costs no wait (notBefore now or earlier) logs nothing.
func TestClockCheckLogs(t *testing.T) {
	const (
		warnMsg  = "lease coordinator clock differs from the local clock by more than HandoffSkew"
		guardMsg = "lease hand-off guard: the factories' first timestamp waits for the previous holder's last possible one"
	)
	for _, c := range []struct {
		name      string
		took      time.Duration // how long the acquisition takes
		coord     time.Duration // coordinator's reading relative to when the request was sent
		warn, log bool          // clock WARN, guard INFO
	}{
		{"clocks agree", 0, 0, false, false},
		{"ahead by the skew", 0, time.Second, false, true},
		{"ahead past the skew", 0, time.Second + 1, true, true},
		{"behind by the skew", 0, -time.Second, false, false},
		{"behind past the skew", 0, -time.Second - 1, true, false},
		{"slow reply, read in its middle", 4 * time.Second, 3 * time.Second, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				logs := &capture{}
				r := newRig(t, 512)
				r.opts.Logger = slog.New(logs)
				r.opts.HandoffSkew = time.Second
				r.s.set(func(f *fake) {
					f.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
						sent := time.Now()
						time.Sleep(c.took)
						l, err := f.mem.Acquire(ctx, d)
						// notBefore = CoordinatorNow + skew - min(margin, hold) = CoordinatorNow
						l.PrevExpiry, l.CoordinatorNow, l.ReleaseHold = time.Time{}, sent.Add(c.coord).UTC().Round(0), time.Second
						return l, err
					}
				})
				m := r.start()
				defer m.Close(context.Background())
				var warn, log bool
				for _, rec := range logs.records() {
					warn = warn || rec.msg == warnMsg
					log = log || rec.msg == guardMsg
				}
				if warn != c.warn || log != c.log {
					t.Errorf("clock WARN %v, guard INFO %v; want %v, %v:\n%s", warn, log, c.warn, c.log, logs)
				}
			})
		})
	}
}

// TestFixedIDHasNoGuard: a deterministic strategy's lease with no clock
// reading and no release hold is a fixed ID: the factories start at once;
// with a release hold it gets the hand-off guard (twice the skew less the
// hold, on our clock).
func TestFixedIDHasNoGuard(t *testing.T) {
	for _, c := range []struct {
		name string
		hold time.Duration
		want time.Duration // notBefore relative to now; 0: unset
	}{
		{"no hold", 0, 0},
		{"a hold", 500 * time.Millisecond, 1500 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, 512)
				r.s.det = true
				r.opts.HandoffSkew = time.Second
				now := time.Now()
				r.s.set(func(f *fake) {
					f.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
						l, err := f.mem.Acquire(ctx, d)
						l.PrevExpiry, l.CoordinatorNow, l.ReleaseHold = time.Time{}, time.Time{}, c.hold
						return l, err
					}
				})
				m := r.start()
				defer m.Close(context.Background())
				_, notBefore, _ := r.f.state()
				got := time.Duration(0)
				if !notBefore.IsZero() {
					got = notBefore.Sub(now)
				}
				if notBefore.IsZero() != (c.want == 0) || got != c.want {
					t.Errorf("notBefore %v (zero: %v), want now + %v (zero: %v)", got, notBefore.IsZero(), c.want, c.want == 0)
				}
			})
		})
	}
}
