package leasetest

import (
	"slices"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
)

// checkList checks a [driver.Lister]: a fresh namespace lists nothing; held
// machine IDs are listed by every contender, ascending, once each, with a
// TTL no longer than the one granted, the holder each of them recorded,
// and a token; a released ID is no longer listed once its release hold has
// passed; Release with a listed slot's token frees that holding; and, with
// a [driver.Claimer], such a release made stale by a later holder leaves
// that holder listed.
func (s *suite) checkList(t *testing.T) {
	newContender := s.h.New(t)
	a := newContender()
	if _, ok := a.(driver.Lister); !ok {
		t.Skipf("%s does not implement driver.Lister", a.Name())
	}
	if slots := s.list(t, a); len(slots) != 0 {
		t.Fatalf("a fresh namespace lists machine IDs %v", listedIDs(slots))
	}
	b := newContender()
	ga, gb := mustAcquire(t, a, longTTL), mustAcquire(t, b, longTTL)
	for who, st := range map[string]driver.Strategy{"the first holder": a, "the second holder": b, "another contender": newContender()} {
		slots := s.list(t, st)
		if got := listedIDs(slots); !slices.Equal(got, sortedIDs(ga.MachineID, gb.MachineID)) {
			t.Fatalf("%s lists machine IDs %v; %d and %d are held", who, got, ga.MachineID, gb.MachineID)
		}
		for _, sl := range slots {
			if sl.Holder == "" {
				t.Errorf("%s lists machine ID %d without the holder it recorded", who, sl.MachineID)
			}
			if sl.TTL < 0 || sl.TTL > longTTL+ttlSlack {
				t.Errorf("%s lists machine ID %d with TTL %v; %v was granted", who, sl.MachineID, sl.TTL, longTTL)
			}
		}
	}

	if err := callRelease(t, t.Context(), a, ga.Lease); err != nil {
		t.Fatalf("Release: %v", err)
	}
	s.awaitUnlisted(t, b, ga)
	slot, ok := s.slot(t, b, gb.MachineID)
	if !ok {
		t.Fatalf("machine ID %d, still held, is no longer listed", gb.MachineID)
	}
	if slot.Token == "" {
		t.Fatalf("machine ID %d is listed without a token", gb.MachineID)
	}
	byToken := driver.Lease{MachineID: slot.MachineID, Token: slot.Token}
	if err := callRelease(t, t.Context(), newContender(), byToken); err != nil {
		t.Fatalf("Release with a listed slot's token: %v", err)
	}
	s.awaitUnlisted(t, b, gb)

	c, ok := newContender().(driver.Claimer)
	if !ok {
		return
	}
	gc := s.claimOnceFree(t, c, gb)
	if err := callRelease(t, t.Context(), newContender(), byToken); err != nil {
		t.Errorf("stale Release with a listed slot's token: %v", err)
	}
	if _, ok := s.slot(t, b, gc.MachineID); !ok {
		t.Errorf("a stale Release with the token of an earlier holding freed machine ID %d of its later holder", gc.MachineID)
	}
	_ = callRelease(t, t.Context(), c.(driver.Strategy), gc.Lease)
}

// list calls List on st (a Lister) and checks its shape: ascending,
// distinct machine IDs inside the namespace.
func (s *suite) list(t *testing.T, st driver.Strategy) []driver.Slot {
	t.Helper()
	l := st.(driver.Lister)
	slots, err := bounded(t, t.Context(), "List", l.List)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	for i, sl := range slots {
		s.checkID(t, "List", sl.MachineID)
		if i > 0 && sl.MachineID <= slots[i-1].MachineID {
			t.Fatalf("List is not ascending with distinct machine IDs: %v", listedIDs(slots))
		}
	}
	return slots
}

// slot returns the slot st lists for machine ID id.
func (s *suite) slot(t *testing.T, st driver.Strategy, id int) (driver.Slot, bool) {
	t.Helper()
	for _, sl := range s.list(t, st) {
		if sl.MachineID == id {
			return sl, true
		}
	}
	return driver.Slot{}, false
}

// awaitUnlisted waits until g's machine ID, just released, is no longer
// listed by st: at the latest when its release hold and a tick of the
// coordinator's clock have passed, give or take a second.
func (s *suite) awaitUnlisted(t *testing.T, st driver.Strategy, g granted) {
	t.Helper()
	giveUp := time.Now().Add(max(g.ReleaseHold, 0) + s.h.ClockTick + time.Second)
	for {
		if _, ok := s.slot(t, st, g.MachineID); !ok {
			return
		}
		if time.Now().After(giveUp) {
			t.Fatalf("machine ID %d still listed %v after its release (release hold %v)", g.MachineID, time.Since(giveUp.Add(-time.Second)), g.ReleaseHold)
		}
		time.Sleep(max(s.h.ClockTick, 10*time.Millisecond))
	}
}

// claimOnceFree claims g's machine ID as soon as its release hold allows.
func (s *suite) claimOnceFree(t *testing.T, c driver.Claimer, g granted) granted {
	t.Helper()
	giveUp := time.Now().Add(max(g.ReleaseHold, 0) + s.h.ClockTick + 5*time.Second)
	for {
		gc, err := claimRetry(t, c, g.MachineID, longTTL)
		if err == nil {
			return gc
		}
		if time.Now().After(giveUp) {
			t.Fatalf("Claim of released machine ID %d: %v", g.MachineID, err)
		}
		time.Sleep(max(s.h.ClockTick, 10*time.Millisecond))
	}
}

func listedIDs(slots []driver.Slot) []int {
	ids := make([]int, len(slots))
	for i, sl := range slots {
		ids[i] = sl.MachineID
	}
	return ids
}

func sortedIDs(ids ...int) []int {
	slices.Sort(ids)
	return ids
}
