package supervise

import (
	"testing"
	"time"
)

// TestWatch: the view follows the manager's calls, each call wakes a
// waiter, and a lease is usable only when in force, past its hand-off wait
// and inside its safe window.
func TestWatch(t *testing.T) {
	w := NewWatch()
	now := time.Now()
	v, changed := w.view()
	if v.seq != 0 || v.usable(now) {
		t.Fatalf("a new Watch shows %+v", v)
	}
	w.Activate(17, now.Add(300*time.Millisecond), now.Add(time.Minute))
	select {
	case <-changed:
	default:
		t.Fatal("Activate did not wake the waiter")
	}
	v, changed = w.view()
	if v.seq != 1 || v.machineID != 17 || !v.active {
		t.Fatalf("after Activate: %+v", v)
	}
	if v.usable(now) || v.readyIn(now) <= 300*time.Millisecond || v.readyIn(now) > 302*time.Millisecond {
		t.Errorf("before the hand-off wait: usable %v, ready in %v; want ready in about 301ms", v.usable(now), v.readyIn(now))
	}
	later := now.Add(time.Second)
	if !v.usable(later) || v.readyIn(later) != 0 {
		t.Errorf("after the hand-off wait: usable %v, ready in %v", v.usable(later), v.readyIn(later))
	}
	if v.usable(now.Add(time.Minute)) {
		t.Error("usable at the end of the safe window")
	}
	w.Extend(now.Add(2 * time.Minute))
	<-changed
	v, changed = w.view()
	if !v.usable(now.Add(time.Minute)) {
		t.Error("not usable inside the extended safe window")
	}
	w.Disable()
	<-changed
	v, changed = w.view()
	if v.active || v.usable(later) {
		t.Errorf("after Disable: %+v", v)
	}
	w.Enable(now.Add(3 * time.Minute))
	<-changed
	if v, _ = w.view(); !v.active || v.seq != 1 || !v.usable(now.Add(150*time.Second)) {
		t.Errorf("after Enable: %+v", v)
	}
	w.Activate(18, now, now.Add(time.Minute))
	if v, _ = w.view(); v.seq != 2 || v.machineID != 18 {
		t.Errorf("a second lease: %+v", v)
	}
}
