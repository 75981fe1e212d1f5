package nonce

import (
	"errors"
	"testing"
	"time"
)

// TestClockAtTheEdgesOfTheEpochRange: a clock reading exactly at the epoch
// is timestamp 0 and accepted; a reading before it is refused; so is one
// at 2^42-1 ms, the reserved last timestamp.
func TestClockAtTheEdgesOfTheEpochRange(t *testing.T) {
	clk := newFakeClock(testStart)
	f, err := New(Config{Fixed: true, Now: clk.Now, Epoch: testStart})
	if err != nil {
		t.Fatalf("clock at the epoch: %v", err)
	}
	if v, err := f.Counter64(); err != nil || ts64(v) != 0 {
		t.Fatalf("clock at the epoch: Counter64 ts %d, %v; want ts 0", ts64(v), err)
	}
	if _, err := New(Config{Fixed: true, Now: clk.Now, Epoch: testStart.Add(time.Nanosecond)}); !errors.Is(err, ErrConfig) {
		t.Fatalf("clock 1ns before the epoch: %v, want ErrConfig", err)
	}
	last := testStart.Add(-(1<<42 - 1) * time.Millisecond)
	if _, err := New(Config{Fixed: true, Now: clk.Now, Epoch: last}); !errors.Is(err, ErrConfig) {
		t.Fatalf("clock at 2^42-1 ms after the epoch: %v, want ErrConfig", err)
	}
}

// TestLastTimestampReserved: timestamp 2^42-1 is never emitted. A sortable
// nonce at clock 2^42-2 ms is the last; at 2^42-1 ms generation fails, and
// an Activate whose notBefore is 2^42-1 ms after the epoch is refused.
func TestLastTimestampReserved(t *testing.T) {
	clk := newFakeClock(testStart)
	epoch := testStart.Add(-(1<<42 - 2) * time.Millisecond)
	f := mustNew(t, Config{Fixed: true, Now: clk.Now, Epoch: epoch})
	if v, err := f.Sortable64(); err != nil || ts64(v) != 1<<42-2 {
		t.Fatalf("Sortable64 at 2^42-2 ms: ts %d, %v", ts64(v), err)
	}
	clk.Advance(time.Millisecond)
	if v, err := f.Sortable64(); !errors.Is(err, ErrConfig) {
		t.Fatalf("Sortable64 at 2^42-1 ms: ts %d, %v; want ErrConfig", ts64(v), err)
	}

	clk = newFakeClock(testStart)
	epoch = testStart.Add(-(1<<42 - 10) * time.Millisecond)
	g := mustNew(t, Config{Now: clk.Now, Epoch: epoch})
	if err := g.Activate(1, epoch.Add((1<<42-2)*time.Millisecond), timeZero); err != nil {
		t.Fatalf("Activate with notBefore 2^42-2 ms after the epoch: %v", err)
	}
	if err := g.Activate(1, epoch.Add((1<<42-1)*time.Millisecond), timeZero); !errors.Is(err, ErrConfig) {
		t.Fatalf("Activate with notBefore 2^42-1 ms after the epoch: %v, want ErrConfig", err)
	}
}
