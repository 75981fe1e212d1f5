package nonce

import (
	"testing"
	"time"
	"unsafe"

	"github.com/once-go/once/internal/lane"
)

// TestLaneLayout pins the layout that package once relies on to draw counter
// nonces without a call (lane.Current): a Factory's first field is the
// pointer to its lease state, whose first field is the lane; and lane.Slow
// is set.
func TestLaneLayout(t *testing.T) {
	if off := unsafe.Offsetof(Factory{}.state); off != 0 {
		t.Fatalf("Factory.state at offset %d, want 0", off)
	}
	if off := unsafe.Offsetof(state{}.Lane); off != 0 {
		t.Fatalf("state.Lane at offset %d, want 0", off)
	}
	if lane.Slow == nil {
		t.Fatal("lane.Slow not set")
	}
	f := mustNew(t, Config{Fixed: true, MachineID: 7})
	if got, want := lane.Current(unsafe.Pointer(f)), &f.state.Load().Lane; got != want {
		t.Fatalf("lane.Current = %p, want %p", got, want)
	}
	f.Disable()
	if got := lane.Current(unsafe.Pointer(f)); got != nil {
		t.Fatalf("lane.Current of a disabled factory = %p, want nil", got)
	}
}

// TestLaneMatchesCounter64 draws alternately through the lane (as once.NewAs
// does, slow path included) and through Counter64: one sequence, the same
// values as Counter64 alone on an identical factory, also across the slow
// path (each millisecond's 8,193rd draw is ahead of the last clock reading).
func TestLaneMatchesCounter64(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Now: clk.Now, Fixed: true, MachineID: 5})
	slow := 0
	viaLane := func() (uint64, error) {
		l := lane.Current(unsafe.Pointer(f))
		if l == nil {
			return f.Counter64()
		}
		n, v, ok := l.Draw()
		if ok {
			return n, nil
		}
		slow++
		return lane.Slow(unsafe.Pointer(f), l, v)
	}
	ref := mustNew(t, Config{Now: clk.Now, Fixed: true, MachineID: 5})
	for i := range 3 * 8192 {
		draw := f.Counter64
		if i%3 != 0 {
			draw = viaLane
		}
		if i > 0 && i%8192 == 0 {
			clk.Advance(time.Millisecond)
		}
		got, err := draw()
		if err != nil {
			t.Fatalf("draw %d: %v", i, err)
		}
		want, err := ref.Counter64()
		if err != nil {
			t.Fatalf("reference draw %d: %v", i, err)
		}
		if got != want {
			t.Fatalf("draw %d: %#x, want %#x (Counter64 of an identical factory)", i, got, want)
		}
	}
	if slow == 0 {
		t.Fatal("no draw through the lane took the slow path")
	}
}
