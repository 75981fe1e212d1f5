package nonce

import (
	"errors"
	"testing"
	"time"
)

// TestEnabledEndsAtTheDeadline: Enabled reports true until the instant of
// the lease deadline and false from that instant on, as the generators
// agree.
func TestEnabledEndsAtTheDeadline(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Now: clk.Now})
	if err := f.Activate(1, timeZero, clk.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour - time.Nanosecond)
	if !f.Enabled() {
		t.Fatal("Enabled() = false 1ns before the deadline")
	}
	clk.Advance(time.Nanosecond)
	if f.Enabled() {
		t.Fatal("Enabled() = true at the deadline")
	}
	if _, err := f.Sortable64(); !errors.Is(err, ErrDisabled) {
		t.Fatalf("Sortable64 at the deadline: %v, want ErrDisabled", err)
	}
}
