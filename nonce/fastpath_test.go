package nonce

import "testing"

// TestCounterFastPathsReadNoClock: while a counter's timestamp is at most
// the latest clock reading, a counter nonce is one atomic add and bit
// packing: Counter64, Counter96 and Counter128 do not read the clock. A
// fresh factory's latest reading is its start millisecond, so all 8,192
// 64-bit values of that millisecond, and the first values of the wider
// kinds, come without a clock read.
func TestCounterFastPathsReadNoClock(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Now: clk.Now, Fixed: true, MachineID: 5})
	start := clk.ms()
	before := clk.reads.Load()
	for i := range uint64(8192) {
		v, err := f.Counter64()
		if err != nil || ts64(v) != start || count64(v) != i {
			t.Fatalf("Counter64 #%d: ts %d count %d, %v; want ts %d count %d", i, ts64(v), count64(v), err, start, i)
		}
	}
	for i := range uint64(100) {
		v96, err := f.Counter96()
		if ts, _, n := split96(v96); err != nil || ts != start || n != i {
			t.Fatalf("Counter96 #%d: ts %d count %d, %v", i, ts, n, err)
		}
		v128, err := f.Counter128()
		if ts, _, _, n := split128(v128); err != nil || ts != start || n != i {
			t.Fatalf("Counter128 #%d: ts %d count %d, %v", i, ts, n, err)
		}
	}
	if n := clk.reads.Load() - before; n != 0 {
		t.Fatalf("the counters read the clock %d times within the start millisecond, want 0", n)
	}
	// The 8,193rd 64-bit value carries into the next millisecond: ahead of
	// the latest reading, so it reads the clock (and, the clock having
	// moved on, does not wait).
	clk.Advance(1e6)
	v, err := f.Counter64()
	if err != nil || ts64(v) != start+1 || count64(v) != 0 {
		t.Fatalf("Counter64 #8192: ts %d count %d, %v; want ts %d count 0", ts64(v), count64(v), err, start+1)
	}
	if clk.reads.Load() == before {
		t.Fatal("Counter64 past the latest clock reading did not read the clock")
	}
}
