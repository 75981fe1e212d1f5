package nonce

import (
	"errors"
	"testing"
	"time"
)

// A process suspended past its lease deadline (SIGSTOP, a VM pause) may
// resume with the deadline timer not yet run. Its first counter call must
// not emit: the counters check the deadline on their fast path too.
func TestCounterFastPathsStopAtTheDeadline(t *testing.T) {
	draws := map[string]func(*Factory) error{
		"Counter64":  func(f *Factory) error { _, err := f.Counter64(); return err },
		"Counter96":  func(f *Factory) error { _, err := f.Counter96(); return err },
		"Counter128": func(f *Factory) error { _, err := f.Counter128(); return err },
	}
	for name, draw := range draws {
		t.Run(name, func(t *testing.T) {
			clk := newFakeClock(testStart)
			f := mustNew(t, Config{Now: clk.Now})
			// The deadline timer runs on real time: an hour away, it does
			// not fire during the test.
			if err := f.Activate(7, timeZero, clk.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			if err := draw(f); err != nil {
				t.Fatalf("before the deadline: %v", err)
			}
			clk.Advance(time.Hour)
			if err := draw(f); !errors.Is(err, ErrDisabled) {
				t.Fatalf("at the deadline: err %v, want ErrDisabled", err)
			}
			if f.Enabled() {
				t.Fatal("the factory is still enabled after a call saw its deadline pass")
			}
		})
	}
}

// Without a deadline (Fixed, or a lease-less Activate) the counters keep
// their clock-free fast path (TestCounterFastPathsReadNoClock); with one,
// a call reads the clock once and still emits the next count.
func TestCounterFastPathsUnderALease(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Now: clk.Now})
	if err := f.Activate(7, timeZero, clk.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	start := clk.ms()
	for i := range uint64(100) {
		before := clk.reads.Load()
		v, err := f.Counter64()
		if err != nil || ts64(v) != start || count64(v) != i || machine64(v) != 7 {
			t.Fatalf("Counter64 #%d: ts %d machine %d count %d, %v", i, ts64(v), machine64(v), count64(v), err)
		}
		if n := clk.reads.Load() - before; n != 1 {
			t.Fatalf("Counter64 #%d read the clock %d times, want 1", i, n)
		}
	}
}
