package leasetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
)

// callClaim is callAcquire for [driver.Claimer].
func callClaim(t *testing.T, ctx context.Context, c driver.Claimer, id int, d time.Duration) (granted, error) {
	t.Helper()
	sent := time.Now()
	l, err := bounded(t, ctx, "Claim", func(ctx context.Context) (driver.Lease, error) { return c.Claim(ctx, id, d) })
	return granted{l, sent}, err
}

// claimRetry calls Claim, repeating it (a bounded number of times) while
// it fails with ErrRetry only: a busy coordinator, not a held ID.
func claimRetry(t *testing.T, c driver.Claimer, id int, d time.Duration) (granted, error) {
	t.Helper()
	var err error
	for range 20 {
		var g granted
		if g, err = callClaim(t, t.Context(), c, id, d); !errors.Is(err, driver.ErrRetry) {
			return g, err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return granted{}, err
}

// checkClaim checks the [driver.Claimer] contract: a free machine ID is
// claimed as asked; claiming it again, by the holder or by another
// contender, is ErrConflict while it is held; the claimed lease renews and
// releases like an acquired one; once released (and its release hold
// over) the ID can be claimed again. IDs outside 0..511 are ErrConfig.
func (s *suite) checkClaim(t *testing.T) {
	newContender := s.h.New(t)
	st := newContender()
	c, ok := st.(driver.Claimer)
	if !ok {
		t.Skipf("%s does not implement driver.Claimer", st.Name())
	}
	for _, bad := range []int{-1, 512} {
		if _, err := callClaim(t, t.Context(), c, bad, longTTL); !errors.Is(err, driver.ErrConfig) {
			t.Errorf("Claim of machine ID %d: %v, want driver.ErrConfig", bad, err)
		}
	}
	id := s.h.Capacity - 1
	g, err := claimRetry(t, c, id, longTTL)
	if err != nil {
		t.Fatalf("Claim of free machine ID %d: %v", id, err)
	}
	if g.MachineID != id || g.Token == "" {
		t.Fatalf("Claim of machine ID %d returned machine ID %d, token %q", id, g.MachineID, g.Token)
	}
	s.checkTTL(t, "Claim", g, longTTL)

	other := newContender().(driver.Claimer)
	for who, cl := range map[string]driver.Claimer{"the holder": c, "another contender": other} {
		if l, err := claimRetry(t, cl, id, longTTL); !errors.Is(err, driver.ErrConflict) {
			t.Errorf("Claim of held machine ID %d by %s: %v (lease %+v), want driver.ErrConflict", id, who, err, l.Lease)
		}
	}
	r := mustRenew(t, st, g.Lease, longTTL)
	s.checkTTL(t, "Renew of a claimed lease", r, longTTL)

	released := time.Now()
	if err := callRelease(t, t.Context(), st, r.Lease); err != nil {
		t.Fatalf("Release of a claimed lease: %v", err)
	}
	if r.ReleaseHold >= time.Second {
		if _, err := claimRetry(t, other, id, longTTL); !errors.Is(err, driver.ErrConflict) {
			t.Errorf("Claim right after a Release with a %v hold: %v, want driver.ErrConflict", r.ReleaseHold, err)
		}
	}
	freeAt := released.Add(max(r.ReleaseHold, 0))
	giveUp := freeAt.Add(5*s.h.ShortTTL + 5*time.Second)
	for {
		g2, err := claimRetry(t, other, id, longTTL)
		replied := time.Now()
		if err == nil {
			if replied.Before(freeAt) {
				t.Errorf("machine ID %d claimed %v before its release hold ran out", id, freeAt.Sub(replied))
			}
			if err := callRelease(t, t.Context(), newContender(), g2.Lease); err != nil {
				t.Errorf("Release of the second claim: %v", err)
			}
			return
		}
		if !errors.Is(err, driver.ErrConflict) {
			t.Fatalf("Claim of released machine ID %d: %v", id, err)
		}
		if replied.After(giveUp) {
			t.Fatalf("released machine ID %d not claimable %v after its release hold ran out: %v", id, replied.Sub(freeAt), err)
		}
		time.Sleep(max(s.h.ShortTTL/50, s.h.ClockTick, time.Millisecond))
	}
}
