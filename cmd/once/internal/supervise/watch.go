package supervise

import (
	"sync"
	"time"
)

// Watch is the lease.Factory that lease hold gives its manager. It
// generates nothing: it keeps what the manager tells a factory about each
// lease (the machine ID, the first moment a value with it may be emitted,
// the end of its safe window, whether it is in force), for hold to act on
// from its own goroutine. The lease's values are made by another process
// (CMD, or whatever reads machine_id=N), which hold starts or tells only
// once that process may emit them.
type Watch struct {
	mu      sync.Mutex
	v       leaseView
	changed chan struct{} // closed and replaced at every change
}

// leaseView is one reading of a Watch.
type leaseView struct {
	seq       int // counts the leases: 1 for the first, 0 before any
	machineID int
	// notBefore: every value with this machine ID must be later than this
	// (the previous holder's last one, allowing for clock skew).
	notBefore time.Time
	// validUntil ends the safe window: nothing may be emitted from then
	// on unless a renewal moves it.
	validUntil time.Time
	// active: between Activate (or Enable) and Disable.
	active bool
}

// NewWatch returns a Watch that has seen no lease.
func NewWatch() *Watch { return &Watch{changed: make(chan struct{})} }

// view returns the current reading and a channel closed at the next change.
func (w *Watch) view() (leaseView, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.v, w.changed
}

func (w *Watch) update(f func(*leaseView)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f(&w.v)
	close(w.changed)
	w.changed = make(chan struct{})
}

// Activate records a new lease.
func (w *Watch) Activate(machineID int, notBefore, validUntil time.Time) error {
	w.update(func(v *leaseView) {
		*v = leaseView{seq: v.seq + 1, machineID: machineID, notBefore: notBefore, validUntil: validUntil, active: true}
	})
	return nil
}

// Enable records that the same lease is in force again until validUntil.
func (w *Watch) Enable(validUntil time.Time) error {
	w.update(func(v *leaseView) { v.validUntil, v.active = validUntil, true })
	return nil
}

// Extend records a renewal.
func (w *Watch) Extend(validUntil time.Time) {
	w.update(func(v *leaseView) { v.validUntil = validUntil })
}

// Disable records that the lease is no longer in force.
func (w *Watch) Disable() {
	w.update(func(v *leaseView) { v.active = false })
}

// readyIn is how long, from now, until a value with the lease's machine ID
// may be emitted: 0 if it may be now. The factories' rule is that every
// timestamp is above notBefore; a process started after notBefore plus a
// millisecond on this clock only reads later timestamps.
func (v leaseView) readyIn(now time.Time) time.Duration {
	return max(v.notBefore.Add(time.Millisecond).Sub(now.Round(0)), 0)
}

// usable reports whether values with the lease's machine ID may be emitted
// at now: the lease is in force, past its hand-off wait and inside its
// safe window.
func (v leaseView) usable(now time.Time) bool {
	return v.active && v.readyIn(now) == 0 && now.Before(v.validUntil)
}
