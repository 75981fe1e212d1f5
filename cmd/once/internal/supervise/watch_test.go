package supervise

import (
	"testing"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// next waits for the view to change after changed was read.
func next(t *testing.T, w *Watch, changed <-chan struct{}) (leaseView, <-chan struct{}) {
	t.Helper()
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("the view did not change")
	}
	return w.view()
}

// TestWatch: the view follows the manager's events and the factory's first
// value, each change wakes a waiter, and a lease is usable only when in
// force, past its hand-off wait and inside its safe window.
func TestWatch(t *testing.T) {
	w, err := NewWatch(nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	v, changed := w.view()
	if v.seq != 0 || v.usable(start) {
		t.Fatalf("a new Watch shows %+v", v)
	}

	// A lease granted for 1 min: trusted until 1 min minus the safety
	// margin after its request, and unusable until the factory hands out
	// its first value. As the manager does, the factory is activated
	// (here with a hand-off wait of 300 ms) before the acquisition's end
	// event, so the Watch's draw finds it running.
	w.Event(lease.Event{Kind: lease.EventStart, Op: lease.OpAcquire, MachineID: -1})
	notBefore := time.Now().Add(300 * time.Millisecond)
	if err := w.Factory().Activate(17, notBefore, time.Now().Add(time.Minute-driver.SafetyMargin)); err != nil {
		t.Fatal(err)
	}
	w.Event(lease.Event{Kind: lease.EventEnd, Op: lease.OpAcquire, MachineID: 17, TTL: time.Minute})
	v, changed = next(t, w, changed)
	if v.seq != 1 || v.machineID != 17 || !v.active {
		t.Fatalf("after the acquire: %+v", v)
	}
	if want := time.Minute - driver.SafetyMargin; v.validUntil.Before(start.Add(want)) || v.validUntil.After(time.Now().Add(want)) {
		t.Errorf("safe window ends at %v, want %v after the request", v.validUntil.Sub(start), want)
	}
	if v.usable(time.Now()) {
		t.Error("usable before the factory's first value")
	}

	// The first value, and so the lease, comes no earlier than the
	// hand-off bound.
	v, changed = next(t, w, changed)
	if v.notBefore.Before(notBefore) {
		t.Errorf("first value at %v, before the hand-off bound %v", v.notBefore, notBefore)
	}
	if now := time.Now(); !v.usable(now.Add(v.readyIn(now))) {
		t.Errorf("not usable after the hand-off wait: %+v", v)
	}
	if v.usable(v.validUntil) {
		t.Error("usable at the end of the safe window")
	}

	// A renewal moves the window; a loss ends the lease.
	old := v.validUntil
	w.Event(lease.Event{Kind: lease.EventStart, Op: lease.OpRenew, MachineID: 17})
	w.Event(lease.Event{Kind: lease.EventEnd, Op: lease.OpRenew, MachineID: 17, TTL: 2 * time.Minute})
	v, changed = next(t, w, changed)
	if !v.validUntil.After(old) || !v.active {
		t.Errorf("after the renewal: %+v (window ended at %v before)", v, old)
	}
	w.Event(lease.Event{Kind: lease.EventLost, MachineID: 17, Err: lease.ErrExpired})
	v, changed = next(t, w, changed)
	if v.active || v.usable(time.Now()) {
		t.Errorf("after the loss: %+v", v)
	}

	// A second lease starts a new view.
	w.Event(lease.Event{Kind: lease.EventStart, Op: lease.OpAcquire, MachineID: -1})
	w.Event(lease.Event{Kind: lease.EventEnd, Op: lease.OpAcquire, MachineID: 18, TTL: time.Minute})
	if v, _ = next(t, w, changed); v.seq != 2 || v.machineID != 18 {
		t.Errorf("a second lease: %+v", v)
	}
}
