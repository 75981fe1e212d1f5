package leasetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
)

// checkLifecycle walks one machine ID through its life in a full namespace,
// where every other ID is held, so that any ID handed out early or twice
// shows: fill to capacity, exhaustion, release and reuse (no earlier than
// the reported ReleaseHold), renewals that extend, expiry and takeover no
// earlier than the reported TTL, a stale renewal (lost) and a stale
// release (harmless).
func (s *suite) checkLifecycle(t *testing.T) {
	contender := s.h.New(t)
	holder := contender()
	held := s.fill(t, contender, holder)
	freed := held[s.h.Capacity/2]
	b := contender()
	gb := s.releaseAndReuse(t, holder, b, freed)
	c := contender()
	gb = s.renewalsExtend(t, b, c, gb)

	// b stops renewing. The ID expires, and is taken over, but not before
	// the TTL b was told, counted from when b sent its last renewal.
	gc := s.takeOver(t, c, gb)
	if gc.MachineID != freed.MachineID {
		t.Fatalf("takeover gave machine ID %d; the only expired one is %d", gc.MachineID, freed.MachineID)
	}

	// The old holder's renewal is lost; the new holder is unaffected.
	if _, err := callRenew(t, t.Context(), b, gb.Lease, s.h.ShortTTL); !errors.Is(err, driver.ErrLost) {
		t.Fatalf("Renew by the old holder after a takeover: %v; want driver.ErrLost", err)
	}
	_ = callRelease(t, t.Context(), b, gb.Lease) // stale: must be harmless
	if g, err := acquire(t, contender(), longTTL); !errors.Is(err, driver.ErrExhausted) {
		t.Fatalf("after a stale Release of machine ID %d, Acquire gave machine ID %d, err %v; want driver.ErrExhausted", gc.MachineID, g.MachineID, err)
	}
	gc = mustRenew(t, c, gc.Lease, longTTL)
	if _, err := callRenew(t, t.Context(), b, gb.Lease, s.h.ShortTTL); !errors.Is(err, driver.ErrLost) {
		t.Fatalf("Renew by the old holder after its stale Release: %v; want driver.ErrLost", err)
	}
	mustRenew(t, c, gc.Lease, longTTL)
}

// fill takes every ID of the namespace with holder, after a few aborted
// acquisitions (which must hold nothing: the fill would come up short),
// and checks that one more is refused.
func (s *suite) fill(t *testing.T, contender func() driver.Strategy, holder driver.Strategy) map[int]granted {
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	for range 3 {
		_, _ = callAcquire(t, canceled, holder, longTTL)
	}
	held := make(map[int]granted, s.h.Capacity)
	for i := range s.h.Capacity {
		g, err := acquire(t, holder, longTTL)
		if err != nil {
			t.Fatalf("Acquire %d of %d in an empty namespace: %v", i+1, s.h.Capacity, err)
		}
		s.checkID(t, "Acquire", g.MachineID)
		if _, dup := held[g.MachineID]; dup {
			t.Fatalf("machine ID %d handed out twice", g.MachineID)
		}
		held[g.MachineID] = g
	}
	if g, err := acquire(t, contender(), longTTL); !errors.Is(err, driver.ErrExhausted) {
		t.Fatalf("Acquire in a full namespace: machine ID %d, err %v; want driver.ErrExhausted", g.MachineID, err)
	}
	return held
}

// releaseAndReuse releases freed in a full namespace and checks that it,
// and only it, is free again for b; with a release hold, not before the
// hold has passed since the Release was sent.
func (s *suite) releaseAndReuse(t *testing.T, holder, b driver.Strategy, freed granted) granted {
	released := time.Now()
	if err := callRelease(t, t.Context(), holder, freed.Lease); err != nil {
		t.Fatalf("Release: %v", err)
	}
	var gb granted
	if freed.ReleaseHold > 0 {
		gb = s.awaitFree(t, b, s.h.ShortTTL, freed.MachineID, released.Add(freed.ReleaseHold),
			fmt.Sprintf("its ReleaseHold (%v from the Release request)", freed.ReleaseHold))
	} else {
		var err error
		gb, err = acquire(t, b, s.h.ShortTTL)
		if errors.Is(err, driver.ErrExhausted) && s.h.ClockTick > 0 {
			// Released in the coordinator's current clock tick: free
			// from the next one (see Harness.ClockTick).
			time.Sleep(s.h.ClockTick)
			gb, err = acquire(t, b, s.h.ShortTTL)
		}
		if err != nil {
			t.Fatalf("after releasing machine ID %d in a full namespace, Acquire failed: %v", freed.MachineID, err)
		}
	}
	if gb.MachineID != freed.MachineID {
		t.Fatalf("after releasing machine ID %d in a full namespace, Acquire gave %d", freed.MachineID, gb.MachineID)
	}
	s.checkTTL(t, "Acquire", gb, s.h.ShortTTL)
	return gb
}

// renewalsExtend checks that while b keeps renewing gb, well past its
// first TTL, c never gets the ID; it returns b's last renewal.
func (s *suite) renewalsExtend(t *testing.T, b, c driver.Strategy, gb granted) granted {
	step := max(s.h.ShortTTL/4, time.Millisecond)
	for end := time.Now().Add(3 * s.h.ShortTTL); time.Now().Before(end); {
		time.Sleep(step)
		gb = mustRenew(t, b, gb.Lease, s.h.ShortTTL)
		s.checkTTL(t, "Renew", gb, s.h.ShortTTL)
		if g, err := callAcquire(t, t.Context(), c, longTTL); err == nil {
			t.Fatalf("machine ID %d handed out while its holder kept renewing it", g.MachineID)
		} else if !transient(err) && !errors.Is(err, driver.ErrExhausted) {
			t.Fatalf("Acquire in a full namespace: %v", err)
		}
	}
	return gb
}

// takeOver polls Acquire on c until it succeeds, and checks that it did
// not succeed before old's lease ran out.
func (s *suite) takeOver(t *testing.T, c driver.Strategy, old granted) granted {
	t.Helper()
	return s.awaitFree(t, c, longTTL, old.MachineID, old.expiry(),
		fmt.Sprintf("the old holder's reported TTL (%v from its request)", old.TTL))
}

// awaitFree polls Acquire(d) on c until it succeeds, and checks that it
// did not succeed before freeAt, when the lease on machine ID id (the
// only one that can free up) ran out by what (the TTL or release hold
// its strategy reported).
func (s *suite) awaitFree(t *testing.T, c driver.Strategy, d time.Duration, id int, freeAt time.Time, what string) granted {
	t.Helper()
	poll := max(s.h.ShortTTL/50, time.Millisecond)
	giveUp := freeAt.Add(5*s.h.ShortTTL + 5*time.Second)
	for {
		g, err := callAcquire(t, t.Context(), c, d)
		replied := time.Now()
		if err == nil {
			if replied.Before(freeAt) {
				t.Fatalf("machine ID %d taken over %v before %s ran out", g.MachineID, freeAt.Sub(replied), what)
			}
			return g
		}
		if !transient(err) && !errors.Is(err, driver.ErrExhausted) {
			t.Fatalf("Acquire while waiting for machine ID %d to free up: %v", id, err)
		}
		if replied.After(giveUp) {
			t.Fatalf("machine ID %d not reusable %v after %s ran out: %v", id, replied.Sub(freeAt), what, err)
		}
		time.Sleep(poll)
	}
}
