package nonce

import (
	"testing"
	"time"
)

func TestSortable64FollowsClock(t *testing.T) {
	clk := newFakeClock(testStart.Add(300 * time.Microsecond))
	f := mustNew(t, Config{Fixed: true, MachineID: 77, Now: clk.Now})
	for step := range 5 {
		now := clk.ms()
		for i := range uint64(100) {
			v, err := f.Sortable64()
			if err != nil {
				t.Fatal(err)
			}
			if ts64(v) != now || machine64(v) != 77 || count64(v) != i {
				t.Fatalf("step %d value %d: ts %d machine %d count %d, want ts %d machine 77 count %d",
					step, i, ts64(v), machine64(v), count64(v), now, i)
			}
		}
		// Skip a varying number of milliseconds; the counter resets.
		clk.Advance(time.Duration(step+1) * time.Millisecond)
	}
}

func TestSortable64CapPerMillisecond(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Fixed: true, MachineID: 2, Now: clk.Now})
	clk.Advance(time.Millisecond) // the first millisecond of a factory is its start
	now := clk.ms()
	var prev uint64
	for i := range uint64(8192) {
		v, err := f.Sortable64()
		if err != nil {
			t.Fatal(err)
		}
		if ts64(v) != now || count64(v) != i || (i > 0 && v <= prev) {
			t.Fatalf("value %d: ts %d count %d (prev %x, this %x)", i, ts64(v), count64(v), prev, v)
		}
		prev = v
	}
	got := make(chan uint64, 1)
	go func() {
		v, err := f.Sortable64()
		if err != nil {
			t.Error(err)
		}
		got <- v
	}()
	if v, early := awaitWaiting(t, clk, 5, got); early {
		t.Fatalf("8193rd value in one ms: ts %d count %d", ts64(v), count64(v))
	}
	clk.Advance(time.Millisecond)
	v := receive(t, got, "after the clock moved on")
	if ts64(v) != now+1 || count64(v) != 0 || v <= prev {
		t.Fatalf("after the cap: ts %d count %d, want ts %d count 0", ts64(v), count64(v), now+1)
	}
}

// TestSortableWideNotCappedAt8192: 96- and 128-bit sortable nonces keep
// counting past 8,192 within one millisecond.
func TestSortableWideNotCappedAt8192(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Fixed: true, MachineID: 300, Now: clk.Now})
	clk.Advance(time.Millisecond)
	now := clk.ms()
	for i := range uint64(20000) {
		b96, err := f.Sortable96()
		if err != nil {
			t.Fatal(err)
		}
		if ts, m, c := split96(b96); ts != now || m != 300 || c != i {
			t.Fatalf("96 #%d: ts %d machine %d count %d", i, ts, m, c)
		}
		b128, err := f.Sortable128()
		if err != nil {
			t.Fatal(err)
		}
		if ts, m, z, c := split128(b128); ts != now || m != 300 || z != 0 || c != i {
			t.Fatalf("128 #%d: ts %d machine %d zero %d count %d", i, ts, m, z, c)
		}
	}
	clk.Advance(time.Millisecond)
	b96, _ := f.Sortable96()
	if ts, _, c := split96(b96); ts != now+1 || c != 0 {
		t.Fatalf("96 next ms: ts %d count %d", ts, c)
	}
}

// TestSortableNeverBeforeStart: a sortable nonce never carries a timestamp
// before its lease's start, even when the clock reads earlier.
func TestSortableNeverBeforeStart(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Now: clk.Now})
	nb := time.Unix(0, clk.ns.Load()).Add(2 * time.Millisecond)
	if err := f.Activate(4, nb, time.Time{}); err != nil {
		t.Fatal(err)
	}
	want := clk.ms() + 2
	got := make(chan uint64, 1)
	go func() {
		v, err := f.Sortable64()
		if err != nil {
			t.Error(err)
		}
		got <- v
	}()
	for range 2 {
		if v, early := awaitWaiting(t, clk, 5, got); early {
			t.Fatalf("ts %d emitted before notBefore %d (clock at %d)", ts64(v), want, clk.ms())
		}
		clk.Advance(time.Millisecond)
	}
	if v := receive(t, got, "after the clock reached notBefore"); ts64(v) != want || count64(v) != 0 {
		t.Fatalf("ts %d count %d, want ts %d count 0", ts64(v), count64(v), want)
	}
}
