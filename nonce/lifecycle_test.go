package nonce

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// generator is one generation method, reporting whether it returned a
// non-zero value.
type generator struct {
	name string
	call func() (nonzero bool, err error)
}

func generators(f *Factory) []generator {
	return []generator{
		{"Counter64", func() (bool, error) { v, err := f.Counter64(); return v != 0, err }},
		{"Counter96", func() (bool, error) { v, err := f.Counter96(); return v != [12]byte{}, err }},
		{"Counter128", func() (bool, error) { v, err := f.Counter128(); return v != [16]byte{}, err }},
		{"Sortable64", func() (bool, error) { v, err := f.Sortable64(); return v != 0, err }},
		{"Sortable96", func() (bool, error) { v, err := f.Sortable96(); return v != [12]byte{}, err }},
		{"Sortable128", func() (bool, error) { v, err := f.Sortable128(); return v != [16]byte{}, err }},
		{"Encrypted64", func() (bool, error) { v, err := f.Encrypted64(); return v != 0, err }},
		{"Encrypted96", func() (bool, error) { v, err := f.Encrypted96(); return v != [12]byte{}, err }},
		{"Encrypted128", func() (bool, error) { v, err := f.Encrypted128(); return v != [16]byte{}, err }},
	}
}

// wantAllDisabled checks that every generator fails with ErrDisabled, a
// message containing msg, and no value.
func wantAllDisabled(t *testing.T, f *Factory, msg string) {
	t.Helper()
	for _, g := range generators(f) {
		for range 3 {
			nonzero, err := g.call()
			if !errors.Is(err, ErrDisabled) {
				t.Fatalf("%s: err = %v, want ErrDisabled", g.name, err)
			}
			if !strings.Contains(err.Error(), msg) || !strings.HasPrefix(err.Error(), "nonce: ") {
				t.Fatalf("%s: message %q, want it to mention %q", g.name, err, msg)
			}
			if nonzero {
				t.Fatalf("%s returned a value with its error", g.name)
			}
		}
	}
	if f.Enabled() {
		t.Fatal("Enabled() = true on a disabled factory")
	}
}

func wantAllWork(t *testing.T, f *Factory) {
	t.Helper()
	for _, g := range generators(f) {
		if nonzero, err := g.call(); err != nil || !nonzero {
			t.Fatalf("%s: nonzero=%v err=%v", g.name, nonzero, err)
		}
	}
	if !f.Enabled() {
		t.Fatal("Enabled() = false on an enabled factory")
	}
}

// TestWaitsForMachineID: a factory that is not Fixed generates nothing,
// from any generator, until a lease manager activates it; Enable cannot
// start it either.
func TestWaitsForMachineID(t *testing.T) {
	f := mustNew(t, Config{BaseKey: testBaseKey})
	wantAllDisabled(t, f, "no machine ID yet")
	if err := f.Enable(timeZero); !errors.Is(err, ErrDisabled) {
		t.Fatalf("Enable before Activate: %v, want ErrDisabled", err)
	}
	wantAllDisabled(t, f, "no machine ID yet")
	if err := f.Activate(42, timeZero, timeZero); err != nil {
		t.Fatal(err)
	}
	if f.MachineID() != 42 {
		t.Fatalf("MachineID() = %d after Activate(42)", f.MachineID())
	}
	wantAllWork(t, f)
	v, _ := f.Counter64()
	if machine64(v) != 42 {
		t.Fatalf("value carries machine %d, want 42", machine64(v))
	}
}

// TestFixedGeneratesAtOnce: Fixed enables the factory at once on
// MachineID (0 when not given), and a lease manager can still activate it.
func TestFixedGeneratesAtOnce(t *testing.T) {
	for _, id := range []int{0, 5, MaxMachineID} {
		f := mustNew(t, Config{BaseKey: testBaseKey, Fixed: true, MachineID: id})
		wantAllWork(t, f)
		v, _ := f.Counter64()
		if machine64(v) != uint64(id) || f.MachineID() != id {
			t.Fatalf("Fixed on %d: value carries machine %d, MachineID() = %d", id, machine64(v), f.MachineID())
		}
	}
	f := mustNew(t, Config{Fixed: true, MachineID: 5})
	if err := f.Activate(6, timeZero, timeZero); err != nil {
		t.Fatal(err)
	}
	if v, _ := f.Counter64(); machine64(v) != 6 {
		t.Fatalf("after Activate(6): machine %d", machine64(v))
	}
}

func TestDisableEnableKeepsCounters(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{BaseKey: testBaseKey, Now: clk.Now, Fixed: true, MachineID: 6})
	wantAllWork(t, f)
	before, _ := f.Counter64()
	f.Disable()
	wantAllDisabled(t, f, "disabled")
	if err := f.Enable(timeZero); err != nil {
		t.Fatal(err)
	}
	after, _ := f.Counter64()
	// Same lease: the counter continues (the generators in wantAllWork and
	// the Encrypted64 draw from the same 64-bit word).
	if after <= before || ts64(after) != ts64(before) {
		t.Fatalf("after Enable: %x, before Disable: %x; want the same ms and a higher count", after, before)
	}
}

func TestActivateErrors(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Fixed: true, BaseKey: testBaseKey, Now: clk.Now})
	for _, id := range []int{-1, 512, 1 << 20} {
		if err := f.Activate(id, timeZero, timeZero); !errors.Is(err, ErrConfig) {
			t.Errorf("Activate(%d): %v, want ErrConfig", id, err)
		}
	}
	wantAllWork(t, f) // a rejected machine ID leaves the factory alone
	past := clk.Now().Add(-time.Second)
	if err := f.Activate(1, timeZero, past); !errors.Is(err, ErrDisabled) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("Activate with a past deadline: %v", err)
	}
	wantAllDisabled(t, f, "lease expired")
	if err := f.Enable(past); !errors.Is(err, ErrDisabled) {
		t.Fatalf("Enable with a past deadline: %v", err)
	}
}

// TestDeadlineTimer: the factory disables itself when its deadline passes,
// with no generator reading the clock and no lease manager involved.
func TestDeadlineTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := mustNew(t, Config{BaseKey: testBaseKey, Epoch: time.Now().Add(-time.Hour)})
		if err := f.Activate(3, timeZero, time.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		wantAllWork(t, f)
		time.Sleep(999 * time.Millisecond)
		wantAllWork(t, f)
		time.Sleep(time.Millisecond)
		synctest.Wait()
		wantAllDisabled(t, f, "lease expired")

		// Enable (same lease renewed late) with a new deadline.
		if err := f.Enable(time.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		wantAllWork(t, f)
		time.Sleep(time.Second)
		synctest.Wait()
		wantAllDisabled(t, f, "lease expired")
	})
}

func TestExtendMovesDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := mustNew(t, Config{BaseKey: testBaseKey, Epoch: time.Now().Add(-time.Hour)})
		if err := f.Activate(3, timeZero, time.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		f.Extend(time.Now().Add(time.Second)) // new deadline: 1.5 s
		time.Sleep(700 * time.Millisecond)    // past the original deadline
		synctest.Wait()
		wantAllWork(t, f)
		time.Sleep(300 * time.Millisecond)
		synctest.Wait()
		wantAllDisabled(t, f, "lease expired")

		// Extend does not enable.
		f.Extend(time.Now().Add(time.Hour))
		wantAllDisabled(t, f, "lease expired")
		// Extend into the past disables.
		if err := f.Enable(time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		wantAllWork(t, f)
		f.Extend(time.Now().Add(-time.Millisecond))
		synctest.Wait()
		wantAllDisabled(t, f, "lease expired")
	})
}

// TestExpiryDetectedByGenerators: with an injected clock the deadline timer
// (real time) has not fired, yet generators that read the clock see the
// deadline passed, fail, and disable the whole factory.
func TestExpiryDetectedByGenerators(t *testing.T) {
	t.Run("sortable", func(t *testing.T) {
		clk := newFakeClock(testStart)
		f := mustNew(t, Config{BaseKey: testBaseKey, Now: clk.Now})
		if err := f.Activate(1, timeZero, clk.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		wantAllWork(t, f)
		clk.Advance(time.Hour)
		if _, err := f.Sortable64(); !errors.Is(err, ErrDisabled) {
			t.Fatalf("Sortable64 past the deadline: %v", err)
		}
		wantAllDisabled(t, f, "lease expired")
	})
	t.Run("counter slow path", func(t *testing.T) {
		clk := newFakeClock(testStart)
		f := mustNew(t, Config{BaseKey: testBaseKey, Now: clk.Now})
		if err := f.Activate(1, timeZero, clk.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		for range 8192 { // exhaust the last checked millisecond
			if _, err := f.Counter64(); err != nil {
				t.Fatal(err)
			}
		}
		clk.Advance(2 * time.Hour)
		if v, err := f.Counter64(); !errors.Is(err, ErrDisabled) || v != 0 {
			t.Fatalf("Counter64 past the deadline: %x, %v", v, err)
		}
		wantAllDisabled(t, f, "lease expired")
	})
}

// TestDisableStopsWaitingGenerators: a generator waiting for the clock (here
// for a notBefore an hour ahead) returns ErrDisabled, not a value, when the
// factory is disabled.
func TestDisableStopsWaitingGenerators(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{BaseKey: testBaseKey, Now: clk.Now})
	if err := f.Activate(1, clk.Now().Add(time.Hour), timeZero); err != nil {
		t.Fatal(err)
	}
	gens := generators(f)
	errs := make(chan error, len(gens))
	for _, g := range gens {
		go func() {
			nonzero, err := g.call()
			if nonzero {
				t.Errorf("%s returned a value", g.name)
			}
			errs <- err
		}()
	}
	if err, early := awaitWaiting(t, clk, 20, errs); early {
		f.Disable()
		for range len(gens) - 1 {
			receive(t, errs, "a generator, disabled")
		}
		t.Fatalf("a generator returned (%v) before the clock reached its hand-off bound: it did not wait", err)
	}
	f.Disable()
	for range gens {
		if err := receive(t, errs, "a waiting generator, disabled"); !errors.Is(err, ErrDisabled) {
			t.Fatalf("waiting generator: %v, want ErrDisabled", err)
		}
	}
}

// TestReactivationNeverRepeatsTimestamps: after a new lease no kind emits a
// timestamp at or below the highest one emitted before, even if the clock
// went back, and notBefore is honoured.
func TestReactivationNeverRepeatsTimestamps(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{BaseKey: testBaseKey, Now: clk.Now, Fixed: true, MachineID: 1})
	t0 := clk.ms()
	clk.Advance(5 * time.Millisecond)
	var hi uint64
	for range 5*8192 + 1 { // counter bursts up to t0+5
		v, _ := f.Counter64()
		hi = max(hi, ts64(v))
	}
	v, _ := f.Sortable64()
	hi = max(hi, ts64(v))
	if hi != t0+5 {
		t.Fatalf("setup: highest ts %d, want %d", hi, t0+5)
	}
	clk.Advance(-5 * time.Millisecond) // wall clock stepped back

	if err := f.Activate(1, timeZero, timeZero); err != nil {
		t.Fatal(err)
	}
	clk.Advance(6 * time.Millisecond) // now t0+6
	for _, got := range firstTimestamps(t, f) {
		if got != hi+1 {
			t.Fatalf("after re-activation: ts %d, want %d (highest before + 1)", got, hi+1)
		}
	}

	// notBefore 20.5 ms ahead: the first timestamp is its ceiling.
	nb := clk.Now().Add(20*time.Millisecond + 500*time.Microsecond)
	want := clk.ms() + 21
	if err := f.Activate(1, nb, timeZero); err != nil {
		t.Fatal(err)
	}
	clk.Advance(21 * time.Millisecond)
	for _, got := range firstTimestamps(t, f) {
		if got != want {
			t.Fatalf("after Activate with notBefore: ts %d, want %d", got, want)
		}
	}
}

// firstTimestamps draws one value of every plain kind and returns their
// timestamps.
func firstTimestamps(t *testing.T, f *Factory) []uint64 {
	t.Helper()
	var out []uint64
	c64, err1 := f.Counter64()
	s64, err2 := f.Sortable64()
	c96, err3 := f.Counter96()
	s96, err4 := f.Sortable96()
	c128, err5 := f.Counter128()
	s128, err6 := f.Sortable128()
	if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil {
		t.Fatal(err)
	}
	out = append(out, ts64(c64), ts64(s64))
	for _, b := range [][12]byte{c96, s96} {
		ts, _, _ := split96(b)
		out = append(out, ts)
	}
	for _, b := range [][16]byte{c128, s128} {
		ts, _, _, _ := split128(b)
		out = append(out, ts)
	}
	return out
}

// TestInFlightCallsAcrossActivate replays, step by step, a call that loaded
// the factory's state before an Activate and touches its counter after it:
// that call must not emit a value from the retired lease, and a value it
// drew before the Activate must be below the new lease's start.
func TestInFlightCallsAcrossActivate(t *testing.T) {
	clk := newFakeClock(testStart)
	f := mustNew(t, Config{Now: clk.Now, Fixed: true, MachineID: 2})
	old := f.state.Load()
	// Drawn before the Activate, emitted after it (still in flight).
	old.c128.Add(1) // a Counter128 value with ts old.initAt
	early64 := old.word.Add(1)
	if err := f.Activate(2, timeZero, timeZero); err != nil {
		t.Fatal(err)
	}
	cur := f.state.Load()
	if cur.initAt <= old.initAt || cur.initAt <= early64>>13 {
		t.Fatalf("new lease starts at %d, not above the in-flight values' ts %d/%d", cur.initAt, old.initAt, early64>>13)
	}

	// Increments after the Activate must leave the fast path...
	if v := old.word.Add(1); v>>13 <= old.known.Load() {
		t.Fatalf("stale Counter64 increment %x would be emitted", v)
	}
	if n := old.c96.Add(1) - 1; n < sealedCounter {
		t.Fatalf("stale Counter96 increment %d would be emitted", n)
	}
	if n := old.c128.Add(1) - 1; n < sealedCounter {
		t.Fatalf("stale Counter128 increment %d would be emitted", n)
	}
	for _, w := range []*paddedWord{&old.s64, &old.s96, &old.s128} {
		if w.Load() != sealedSort {
			t.Fatal("sortable word of the retired lease not sealed")
		}
	}
	// ...and the slow path draws from the new lease instead.
	clk.Advance(2 * time.Millisecond)
	v, err := f.counter64Slow(old, old.word.Add(1))
	if err != nil {
		t.Fatal(err)
	}
	if ts64(v) != cur.initAt || count64(v) != 0 {
		t.Fatalf("slow path after Activate: ts %d count %d, want the new lease's first value (ts %d)", ts64(v), count64(v), cur.initAt)
	}
}
