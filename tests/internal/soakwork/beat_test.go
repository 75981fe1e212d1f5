package soakwork

import (
	"testing"
	"time"
)

// TestUntilBeat: a waiting worker wakes on the next Align boundary, never
// on the boundary it is at; late by its jitter on odd boundaries, at the
// boundary itself (a tie with the other waiters) on even ones.
func TestUntilBeat(t *testing.T) {
	base := time.Date(2026, 12, 8, 1, 0, 0, 0, time.UTC) // an even boundary
	if base.UnixNano()/int64(Align)%2 != 0 {
		t.Fatal("base is not an even boundary")
	}
	for _, c := range []struct {
		now    time.Duration
		jitter time.Duration
		want   time.Duration
	}{
		{0, 0, Align},
		{0, 7 * time.Millisecond, Align + 7*time.Millisecond},
		{10 * time.Millisecond, 0, Align - 10*time.Millisecond},
		{Align, 7 * time.Millisecond, Align},
		{Align - time.Nanosecond, Stagger - 1, Stagger},
		{2*Align - time.Nanosecond, Stagger - 1, 1},
		{3*Align + 100*time.Millisecond, 5 * time.Millisecond, Align - 100*time.Millisecond},
		{2*Align + 100*time.Millisecond, 5 * time.Millisecond, Align - 95*time.Millisecond},
	} {
		if got := untilBeat(base.Add(c.now), c.jitter); got != c.want {
			t.Errorf("untilBeat(+%v, jitter %v) = %v, want %v", c.now, c.jitter, got, c.want)
		}
	}
}

// TestRejoins: in contention runs the odd slots go back to the beat after
// a loss; the even slots, and every slot of a run without -ids, leave it
// to the manager.
func TestRejoins(t *testing.T) {
	for _, c := range []struct {
		proc string
		ids  int
		want bool
	}{{"w1", 2, true}, {"w2", 2, false}, {"w3", 2, true}, {"w1", 0, false}, {"x", 2, false}} {
		if got := rejoins(Config{Proc: c.proc, IDs: c.ids}); got != c.want {
			t.Errorf("rejoins(%s, ids %d) = %v, want %v", c.proc, c.ids, got, c.want)
		}
	}
}
