package leasetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/once-go/once/lease/driver"
)

// checkMachineIDs checks a strategy restricted to a range of machine IDs
// (Harness.Range): with two IDs and three contenders, two hold IDs in the
// range and the third finds it exhausted; a released ID goes to the third;
// Claim refuses an ID outside the range; and a range that is empty or
// outside 0..511 is refused with driver.ErrConfig naming the option.
func (s *suite) checkMachineIDs(t *testing.T) {
	r := driver.IDRange{Min: min(5, s.h.Capacity-2), Max: min(6, s.h.Capacity-1)}
	contender := s.h.Range(t, r)
	var sts [3]driver.Strategy
	for i := range sts {
		st, err := contender()
		if err != nil {
			t.Fatalf("a strategy restricted to machine IDs %v: %v", r, err)
		}
		if rg, ok := st.(driver.Ranged); ok && rg.MachineIDs() != r {
			t.Errorf("MachineIDs() = %v, configured %v", rg.MachineIDs(), r)
		}
		sts[i] = st
	}
	var held [2]granted
	for i := range held {
		held[i] = mustAcquire(t, sts[i], longTTL)
		if !r.Contains(held[i].MachineID) {
			t.Fatalf("contender %d restricted to machine IDs %v acquired machine ID %d", i, r, held[i].MachineID)
		}
	}
	if held[0].MachineID == held[1].MachineID {
		t.Fatalf("two contenders hold machine ID %d", held[0].MachineID)
	}
	g, err := acquire(t, sts[2], longTTL)
	if err == nil {
		t.Fatalf("a third contender restricted to machine IDs %v, both held, acquired machine ID %d", r, g.MachineID)
	}
	if !errors.Is(err, driver.ErrExhausted) {
		t.Errorf("a third contender restricted to machine IDs %v, both held: %v; want driver.ErrExhausted", r, err)
	}
	if c, ok := sts[2].(driver.Claimer); ok {
		out := r.Max + 1
		if out >= s.h.Capacity {
			out = r.Min - 1
		}
		g, err := callClaim(t, t.Context(), c, out, longTTL)
		if err == nil {
			t.Errorf("Claim of machine ID %d outside the range %v succeeded", out, r)
			_ = callRelease(t, t.Context(), sts[2], g.Lease)
		} else if !errors.Is(err, driver.ErrConfig) {
			t.Errorf("Claim of machine ID %d outside the range %v: %v; want driver.ErrConfig", out, r, err)
		}
	}
	// The released ID goes to the third contender: a hand-off within the range.
	s.releaseAndReuse(t, sts[0], sts[2], held[0])

	for _, bad := range []driver.IDRange{{Min: 3, Max: 2}, {Min: -1, Max: 4}, {Min: 500, Max: 512}} {
		st, err := s.h.Range(t, bad)()
		switch {
		case err == nil:
			t.Errorf("a strategy restricted to machine IDs %v was made (%s); want driver.ErrConfig", bad, st.Name())
		case !errors.Is(err, driver.ErrConfig):
			t.Errorf("machine IDs %v: %v; want driver.ErrConfig", bad, err)
		case !strings.Contains(err.Error(), "MachineIDs"):
			t.Errorf("machine IDs %v: %q does not name the option MachineIDs", bad, err)
		}
	}
}
