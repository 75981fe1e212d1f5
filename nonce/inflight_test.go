package nonce

import (
	"errors"
	"testing"
	"time"
)

// TestCounterSlowPathsDrawFromNewLease replays, step by step, 64-, 96- and
// 128-bit counter calls that drew a value from a lease and, checking it
// against the clock, find the lease replaced by a new one (here on another
// machine ID): each draws again from the new lease and returns that lease's
// first value; later calls continue the new lease's count.
func TestCounterSlowPathsDrawFromNewLease(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Now: clk.Now, Fixed: true, MachineID: 2})
	old := f.state.Load()
	v64 := old.word.Add(1)
	n96 := old.c96.Add(1) - 1
	n128 := old.c128.Add(1) - 1
	if err := f.Activate(3, timeZero, timeZero); err != nil {
		t.Fatal(err)
	}
	cur := f.state.Load()
	clk.Advance(2 * time.Millisecond)

	c64, err := f.counter64Slow(old, v64)
	if err != nil || ts64(c64) != cur.initAt || machine64(c64) != 3 || count64(c64) != 0 {
		t.Fatalf("Counter64 across the new lease: ts %d machine %d count %d, %v; want ts %d machine 3 count 0",
			ts64(c64), machine64(c64), count64(c64), err, cur.initAt)
	}
	c96, err := f.counter96Slow(old, n96)
	if ts, m, n := split96(c96); err != nil || ts != cur.initAt || m != 3 || n != 0 {
		t.Fatalf("Counter96 across the new lease: ts %d machine %d count %d, %v; want ts %d machine 3 count 0", ts, m, n, err, cur.initAt)
	}
	c128, err := f.counter128Slow(old, n128)
	if ts, m, _, n := split128(c128); err != nil || ts != cur.initAt || m != 3 || n != 0 {
		t.Fatalf("Counter128 across the new lease: ts %d machine %d count %d, %v; want ts %d machine 3 count 0", ts, m, n, err, cur.initAt)
	}

	next96, err := f.Counter96()
	if _, m, n := split96(next96); err != nil || m != 3 || n != 1 {
		t.Fatalf("next Counter96: machine %d count %d, %v; want machine 3 count 1", m, n, err)
	}
	next128, err := f.Counter128()
	if _, m, _, n := split128(next128); err != nil || m != 3 || n != 1 {
		t.Fatalf("next Counter128: machine %d count %d, %v; want machine 3 count 1", m, n, err)
	}
}

// TestSealedCountersLeaveTheFastPath: a 96- or 128-bit counter call that
// loaded a lease's state just before an Activate retired it, and increments
// its counter just after, draws exactly sealedCounter. That count must
// send it to the slow path (which checks the lease) even when the
// timestamp it implies is within the latest clock reading. Replayed here
// by sealing the current state in place with its deadline passed: the slow
// path refuses, so a value means the fast path took the sealed count.
func TestSealedCountersLeaveTheFastPath(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Now: clk.Now, Fixed: true, MachineID: 4})
	st := f.state.Load()
	st.seal()
	st.known.Store(st.initAt + sealedCounter>>count96Bits) // the 96-bit ts of the sealed count
	st.deadline.Store(0)
	if v, err := f.Counter96(); !errors.Is(err, ErrDisabled) {
		ts, m, n := split96(v)
		t.Fatalf("Counter96 on a sealed state: ts %d machine %d count %d, %v; want ErrDisabled", ts, m, n, err)
	}
	f.state.Store(st) // the slow path's expiry disabled the factory
	if v, err := f.Counter128(); !errors.Is(err, ErrDisabled) {
		ts, m, _, n := split128(v)
		t.Fatalf("Counter128 on a sealed state: ts %d machine %d count %d, %v; want ErrDisabled", ts, m, n, err)
	}
}
