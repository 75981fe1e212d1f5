package nonce

import (
	"strconv"
	"testing"
	"testing/synctest"
	"time"
)

func TestCounter64BurstKeepsTimestampAndCountsUp(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Fixed: true, MachineID: 37, Now: clk.Now})
	start := clk.ms()
	for i := range uint64(8192) {
		v, err := f.Counter64()
		if err != nil {
			t.Fatal(err)
		}
		if ts64(v) != start || machine64(v) != 37 || count64(v) != i {
			t.Fatalf("value %d = ts %d machine %d count %d, want ts %d machine 37 count %d",
				i, ts64(v), machine64(v), count64(v), start, i)
		}
	}
}

func TestCounter64CarriesIntoTimestamp(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Fixed: true, MachineID: 5, Now: clk.Now})
	start := clk.ms()
	clk.Advance(3 * time.Millisecond) // three saved-up milliseconds
	var prev uint64
	for i := range uint64(4*8192 + 0) {
		v, err := f.Counter64()
		if err != nil {
			t.Fatal(err)
		}
		if want := start + i/8192; ts64(v) != want || count64(v) != i%8192 {
			t.Fatalf("value %d = ts %d count %d, want ts %d count %d", i, ts64(v), count64(v), want, i%8192)
		}
		if ts64(v) > clk.ms() {
			t.Fatalf("timestamp %d passed the clock %d", ts64(v), clk.ms())
		}
		if i > 0 && v <= prev {
			t.Fatalf("value %d not above its predecessor", i)
		}
		prev = v
	}
}

// TestCounterWaitsForClock: once the counter's timestamp reaches the clock,
// the next call waits (polling the clock) until another goroutine advances
// it, then continues at the new millisecond. Checked for every size.
func TestCounterWaitsForClock(t *testing.T) {
	for _, size := range []int{64, 96, 128} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			clk := newFakeClock(testStart)
			// Activate with notBefore one ms ahead: every size must wait,
			// not only the 64-bit one whose counter exhausts.
			f := mustNew(t, Config{Now: clk.Now})
			next := time.Unix(0, clk.ns.Load()).Add(time.Millisecond)
			if err := f.Activate(9, next, time.Time{}); err != nil {
				t.Fatal(err)
			}
			want := clk.ms() + 1
			got := make(chan uint64, 1)
			go func() {
				var ts uint64
				switch size {
				case 64:
					v, err := f.Counter64()
					if err != nil {
						t.Error(err)
					}
					ts = ts64(v)
				case 96:
					v, err := f.Counter96()
					if err != nil {
						t.Error(err)
					}
					ts, _, _ = split96(v)
				case 128:
					v, err := f.Counter128()
					if err != nil {
						t.Error(err)
					}
					ts, _, _, _ = split128(v)
				}
				got <- ts
			}()
			if ts, early := awaitWaiting(t, clk, 5, got); early {
				t.Fatalf("returned ts %d while the clock is at %d, below the hand-off bound %d: it did not wait", ts, clk.ms(), want)
			}
			clk.Advance(time.Millisecond)
			if ts := receive(t, got, "after the clock reached the hand-off bound"); ts != want {
				t.Fatalf("ts %d, want %d", ts, want)
			}
		})
	}
}

func TestCounter64WaitsWhenExhausted(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Fixed: true, MachineID: 1, Now: clk.Now})
	start := clk.ms()
	for range 8192 {
		if _, err := f.Counter64(); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan uint64, 1)
	go func() {
		v, err := f.Counter64()
		if err != nil {
			t.Error(err)
		}
		got <- v
	}()
	if v, early := awaitWaiting(t, clk, 5, got); early {
		t.Fatalf("value with ts %d emitted while the clock is at %d", ts64(v), start)
	}
	clk.Advance(time.Millisecond)
	v := receive(t, got, "after the clock moved on")
	if ts64(v) != start+1 || count64(v) != 0 {
		t.Fatalf("after the wait: ts %d count %d, want ts %d count 0", ts64(v), count64(v), start+1)
	}
	// And it continues from there.
	v2, _ := f.Counter64()
	if ts64(v2) != start+1 || count64(v2) != 1 {
		t.Fatalf("next: ts %d count %d, want ts %d count 1", ts64(v2), count64(v2), start+1)
	}
}

func TestCounter96And128Layout(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Fixed: true, MachineID: 511, Now: clk.Now})
	start := clk.ms()
	for i := range uint64(10000) {
		b96, err := f.Counter96()
		if err != nil {
			t.Fatal(err)
		}
		ts, m, c := split96(b96)
		if ts != start || m != 511 || c != i {
			t.Fatalf("96 #%d: ts %d machine %d count %d", i, ts, m, c)
		}
		b128, err := f.Counter128()
		if err != nil {
			t.Fatal(err)
		}
		ts, m, z, c := split128(b128)
		if ts != start || m != 511 || z != 0 || c != i {
			t.Fatalf("128 #%d: ts %d machine %d zero %d count %d", i, ts, m, z, c)
		}
	}
}

// TestCounter96WrapsIntoTimestamp drives the 96-bit word to a 45-bit wrap.
func TestCounter96WrapsIntoTimestamp(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Fixed: true, MachineID: 3, Now: clk.Now})
	start := clk.ms()
	clk.Advance(time.Millisecond)
	f.state.Load().c96.Store(1<<45 - 1)
	b, _ := f.Counter96()
	if ts, _, c := split96(b); ts != start || c != 1<<45-1 {
		t.Fatalf("last of the first wrap: ts %d count %d", ts, c)
	}
	b, _ = f.Counter96()
	if ts, _, c := split96(b); ts != start+1 || c != 0 {
		t.Fatalf("first of the second wrap: ts %d count %d, want ts %d count 0", ts, c, start+1)
	}
}

// TestRateLimitUnderSynctest: in a synctest bubble the clock moves only when
// every goroutine sleeps; a generator waiting for the next millisecond must
// therefore end up sleeping, not yield forever.
func TestRateLimitUnderSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		f := mustNew(t, Config{Fixed: true, MachineID: 1, Epoch: start.Add(-time.Hour)})
		var c, s uint64
		for range 3*8192 + 1 {
			var err error
			if c, err = f.Counter64(); err != nil {
				t.Fatal(err)
			}
			if s, err = f.Sortable64(); err != nil {
				t.Fatal(err)
			}
		}
		h := uint64(time.Hour / time.Millisecond)
		if ts64(c) != h+3 || count64(c) != 0 || ts64(s) != h+3 || count64(s) != 0 {
			t.Fatalf("counter ts %d count %d, sortable ts %d count %d; want ts %d count 0",
				ts64(c), count64(c), ts64(s), count64(s), h+3)
		}
		if el := time.Since(start); el != 3*time.Millisecond {
			t.Fatalf("fake time advanced %v, want 3ms", el)
		}
	})
}
