package once_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// stepClock is a clock that moves only when told to.
type stepClock struct{ ns atomic.Int64 }

func newStepClock(t time.Time) *stepClock {
	c := new(stepClock)
	c.ns.Store(t.UnixNano())
	return c
}

func (c *stepClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *stepClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

var drawBinding once.Binding

type drawSpec struct{}

func (drawSpec) Options() once.Options { return once.Options{Generator: &drawBinding} }

// TestNewMatchesCounter64 draws through NewAs and New (which call the
// factory's Counter64 directly) and a NewFunc of the same options, and compares
// every value with Counter64 of an identical factory: the same sequence,
// also where a draw is ahead of the clock and takes the slow path (each
// millisecond's 8,193rd draw).
func TestNewMatchesCounter64(t *testing.T) {
	clk := newStepClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 300, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := nonce.New(nonce.Config{Fixed: true, MachineID: 300, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	drawBinding.Set(f)
	defer drawBinding.Set(nil)
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)
	newFunc, err := drawSpec{}.Options().NewFunc()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 * 8192 {
		if i > 0 && i%8192 == 0 {
			clk.Advance(time.Millisecond)
		}
		var got uint64
		switch i % 3 {
		case 0:
			id, err := once.NewAs[once.Typed[drawSpec]]()
			if err != nil {
				t.Fatalf("NewAs %d: %v", i, err)
			}
			got = id.Uint64()
		case 1:
			id, err := once.New()
			if err != nil {
				t.Fatalf("New %d: %v", i, err)
			}
			got = id.Uint64()
		default:
			id, err := newFunc()
			if err != nil {
				t.Fatalf("NewFunc %d: %v", i, err)
			}
			got = id.Uint64()
		}
		want, err := ref.Counter64()
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("draw %d: %#x, want %#x", i, got, want)
		}
	}
}

// TestNewSkipsZero: the first counter nonce of machine 0 in the epoch's
// first millisecond is 0, which is no ID; NewAs and New skip it.
func TestNewSkipsZero(t *testing.T) {
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, draw := range map[string]func() (uint64, error){
		"NewAs": func() (uint64, error) { id, err := once.NewAs[once.Typed[drawSpec]](); return id.Uint64(), err },
		"New":   func() (uint64, error) { id, err := once.New(); return id.Uint64(), err },
	} {
		f, err := nonce.New(nonce.Config{Fixed: true, Epoch: epoch, Now: fixedClock(epoch)})
		if err != nil {
			t.Fatal(err)
		}
		drawBinding.Set(f)
		once.DefaultBinding().Set(f)
		v, err := draw()
		if err != nil || v != 1 {
			t.Errorf("%s at the epoch = %#x, %v; want 0x1 (0 skipped)", name, v, err)
		}
	}
	drawBinding.Set(nil)
	once.DefaultBinding().Set(nil)
}

// TestNewSlowPathError: a draw that is ahead of the clock when the lease
// has expired takes the slow path, which returns the factory's error,
// wrapped like every generator error.
func TestNewSlowPathError(t *testing.T) {
	clk := newStepClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	f, err := nonce.New(nonce.Config{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Activate(4, time.Time{}, clk.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	drawBinding.Set(f)
	defer drawBinding.Set(nil)
	for i := range 8192 { // the first millisecond's budget
		if _, err := once.NewAs[once.Typed[drawSpec]](); err != nil {
			t.Fatalf("draw %d: %v", i, err)
		}
	}
	clk.Advance(2 * time.Second)
	id, err := once.NewAs[once.Typed[drawSpec]]()
	if !errors.Is(err, nonce.ErrDisabled) || !id.IsZero() || !strings.HasPrefix(err.Error(), "once: generating an ID: ") {
		t.Fatalf("NewAs after the deadline = %v, %v; want a zero ID and a wrapped nonce.ErrDisabled", id, err)
	}
}

// TestNewAllocs: NewAs and New allocate nothing, on the fast path and on
// the slow path that waits for the clock (each millisecond's 8,193rd draw).
func TestNewAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters change allocation behaviour")
	}
	clk := newStepClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 2, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	drawBinding.Set(f)
	defer drawBinding.Set(nil)
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)
	newFunc, err := drawSpec{}.Options().NewFunc()
	if err != nil {
		t.Fatal(err)
	}
	for name, draw := range map[string]func(){
		"NewAs":   func() { _, _ = once.NewAs[once.Typed[drawSpec]]() },
		"New":     func() { _, _ = once.New() },
		"NewFunc": func() { _, _ = newFunc() },
	} {
		if n := testing.AllocsPerRun(1000, draw); n != 0 {
			t.Errorf("%s: %v allocations per call", name, n)
		}
	}
	// Spend the rest of this millisecond's budget, then draw across the
	// slow path once per run.
	for {
		id, err := once.New()
		if err != nil {
			t.Fatal(err)
		}
		if nonce.Split64(id.Uint64(), time.Time{}).Counter == 8191 {
			break
		}
	}
	if n := testing.AllocsPerRun(5, func() {
		clk.Advance(time.Millisecond)
		for range 8192 {
			if _, err := once.NewAs[once.Typed[drawSpec]](); err != nil {
				t.Fatal(err)
			}
		}
	}); n != 0 {
		t.Errorf("8,192 draws across the slow path: %v allocations", n)
	}
}

// TestNewFuncErrors: NewFunc reports invalid options as New does, and its
// function reports a missing generator on each call, as New does.
func TestNewFuncErrors(t *testing.T) {
	bad := once.Options{Prefix: "a b"}
	_, newErr := bad.New()
	if _, err := bad.NewFunc(); !errors.Is(err, once.ErrConfig) || err.Error() != newErr.Error() {
		t.Errorf("NewFunc of invalid options: %v; New: %v", err, newErr)
	}
	var b once.Binding
	draw, err := once.Options{Generator: &b}.NewFunc()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := draw(); !errors.Is(err, once.ErrNoGenerator) {
		t.Errorf("no generator: %v, want ErrNoGenerator", err)
	}
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 9})
	if err != nil {
		t.Fatal(err)
	}
	b.Set(f) // bound after NewFunc: the function sees it
	if id, err := draw(); err != nil || nonce.Split64(id.Uint64(), time.Time{}).MachineID != 9 {
		t.Errorf("after Set: %v, %v; want an ID of machine 9", id, err)
	}
}
