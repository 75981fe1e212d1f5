package redislease_test

import (
	"errors"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
)

// testHold is the release hold of the timed tests: long enough to see
// against a loaded machine's scheduling, short enough to wait out.
const testHold = 400 * time.Millisecond

// TestReleaseHold: a released machine ID stays taken for ReleaseHold,
// counted from when the Release was sent (another strategy instance gets
// other IDs meanwhile), and is then acquirable. The released lease is
// left alone once someone else holds the ID: a second (stale) release of
// it, as the lease manager sends after an abandoned renewal, does not
// touch the new holder's lease.
func TestReleaseHold(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		o := redislease.Options{Mode: tg.mode, Name: name, LowestFirst: true, ReleaseHold: testHold}
		a, b := strategyOpts(t, c, o), strategyOpts(t, c, o)
		ctx := ctxT(t)

		l, err := a.Acquire(ctx, time.Minute)
		if err != nil || l.MachineID != 0 {
			t.Fatalf("Acquire = ID %d, %v; want ID 0", l.MachineID, err)
		}
		if l.ReleaseHold != testHold {
			t.Errorf("Acquire reports ReleaseHold %v, want %v", l.ReleaseHold, testHold)
		}
		if r, err := a.Renew(ctx, l, time.Minute); err != nil || r.ReleaseHold != testHold {
			t.Fatalf("Renew = ReleaseHold %v, %v; want %v", r.ReleaseHold, err, testHold)
		}

		sent := time.Now()
		if err := a.Release(ctx, l); err != nil {
			t.Fatalf("Release: %v", err)
		}
		if got := value(t, c, tg.mode, name, 0); got != l.Token {
			t.Fatalf("right after Release ID 0 holds %q, want the released token", got)
		}
		if p := pttl(t, c, tg.mode, name, 0); p <= 0 || p > testHold.Milliseconds() {
			t.Fatalf("right after Release ID 0 has %d ms left, want (0, %d]", p, testHold.Milliseconds())
		}

		// Another contender polls for the lowest free ID: it gets 1, 2, ...
		// until the hold runs out, then 0.
		var lb driver.Lease
		others := 0
		for {
			g, err := b.Acquire(ctx, time.Minute)
			replied := time.Now()
			if err != nil {
				t.Fatalf("contender's Acquire: %v", err)
			}
			if g.MachineID == 0 {
				if early := sent.Add(testHold).Sub(replied); early > 0 {
					t.Fatalf("released ID 0 handed to another holder %v after the Release was sent, %v before its hold of %v ran out",
						replied.Sub(sent), early, testHold)
				}
				if late := replied.Sub(sent); late > testHold+3*time.Second {
					t.Errorf("released ID 0 free again only %v after the Release was sent, hold %v", late, testHold)
				}
				lb = g
				break
			}
			others++
			if replied.After(sent.Add(testHold + 10*time.Second)) {
				t.Fatalf("released ID 0 not free %v after the Release was sent", replied.Sub(sent))
			}
			time.Sleep(10 * time.Millisecond)
		}
		if others == 0 {
			t.Error("the contender's first Acquire got the released ID: no hold was seen")
		}

		// The old holder's renewal is lost; its stale release (again) leaves
		// the new holder's lease as it was.
		if _, err := a.Renew(ctx, l, time.Minute); !errors.Is(err, driver.ErrLost) {
			t.Fatalf("old holder's Renew after the takeover = %v, want ErrLost", err)
		}
		if err := a.Release(ctx, l); err != nil {
			t.Fatalf("stale Release: %v", err)
		}
		if got := value(t, c, tg.mode, name, 0); got != lb.Token {
			t.Fatalf("after a stale Release ID 0 holds %q, want the new holder's token", got)
		}
		if p := pttl(t, c, tg.mode, name, 0); p <= 30000 {
			t.Fatalf("after a stale Release the new holder's lease has %d ms left, want about a minute", p)
		}
		t.Logf("ID 0 free again %v after the Release was sent (hold %v); %d other IDs handed out meanwhile",
			time.Since(sent).Round(time.Millisecond), testHold, others)
	})
}

// TestReleaseHoldReclaim: during the hold the released lease is still its
// holder's (its token is kept): Reclaim (the lease manager's StateFile
// path after a release whose reply was lost) takes it back for a full
// duration. Once the hold has run out it is gone: ErrLost.
func TestReleaseHoldReclaim(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		s := strategyOpts(t, c, redislease.Options{Mode: tg.mode, Name: name, ReleaseHold: testHold})
		ctx := ctxT(t)
		l, err := s.Acquire(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Release(ctx, l); err != nil {
			t.Fatal(err)
		}
		stored := driver.Lease{MachineID: l.MachineID, Token: l.Token}
		r, err := s.Reclaim(ctx, stored, time.Minute)
		if err != nil {
			t.Fatalf("Reclaim during the hold: %v", err)
		}
		if r.ReleaseHold != testHold || r.TTL != time.Minute {
			t.Errorf("Reclaim = TTL %v, ReleaseHold %v; want 1m, %v", r.TTL, r.ReleaseHold, testHold)
		}
		if p := pttl(t, c, tg.mode, name, l.MachineID); p <= 30000 {
			t.Fatalf("reclaimed lease has %d ms left, want about a minute", p)
		}
		if err := s.Release(ctx, r); err != nil {
			t.Fatal(err)
		}
		waitExpired(t, c, tg.mode, name, l.MachineID)
		if _, err := s.Reclaim(ctx, stored, time.Minute); !errors.Is(err, driver.ErrLost) {
			t.Fatalf("Reclaim after the hold = %v, want ErrLost", err)
		}
		if held(t, c, tg.mode, name, l.MachineID) {
			t.Fatal("a lost Reclaim recreated the lease")
		}
	})
}

// TestReleaseHoldDefaults: without ReleaseHold a release keeps the ID for
// DefaultReleaseHold (1s); with a negative one it deletes at once and the
// ID is free for the next Acquire. Leases report the hold either way.
func TestReleaseHoldDefaults(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		ctx := ctxT(t)
		for _, x := range []struct {
			hold, want time.Duration
		}{{0, redislease.DefaultReleaseHold}, {noHold, 0}, {-time.Hour, 0}, {1500 * time.Microsecond, 2 * time.Millisecond}} {
			name := namespace(t, c)
			o := redislease.Options{Mode: tg.mode, Name: name, LowestFirst: true, ReleaseHold: x.hold}
			s, other := strategyOpts(t, c, o), strategyOpts(t, c, o)
			l, err := s.Acquire(ctx, time.Minute)
			if err != nil || l.MachineID != 0 {
				t.Fatalf("ReleaseHold %v: Acquire = ID %d, %v; want ID 0", x.hold, l.MachineID, err)
			}
			if l.ReleaseHold != x.want {
				t.Errorf("ReleaseHold %v: lease reports %v, want %v", x.hold, l.ReleaseHold, x.want)
			}
			if err := s.Release(ctx, l); err != nil {
				t.Fatal(err)
			}
			switch p := pttl(t, c, tg.mode, name, 0); {
			case x.want == 0 && held(t, c, tg.mode, name, 0):
				t.Errorf("ReleaseHold %v: ID 0 still held after Release (%d ms left), want deleted", x.hold, p)
			case x.want >= time.Second && (p <= 0 || p > x.want.Milliseconds()):
				t.Errorf("ReleaseHold %v: ID 0 has %d ms left after Release, want (0, %d]", x.hold, p, x.want.Milliseconds())
			}
			if x.want == 0 {
				if g, err := other.Acquire(ctx, time.Minute); err != nil || g.MachineID != 0 {
					t.Errorf("ReleaseHold %v: Acquire right after the Release = ID %d, %v; want the released ID 0", x.hold, g.MachineID, err)
				}
			}
		}
	})
}
