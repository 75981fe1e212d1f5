package supervise

import (
	"fmt"
	"sync"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

// Watch follows the lease hold's manager holds, through the manager's
// events and a nonce factory the lease protects: it keeps the machine ID
// of each lease, the first moment a value with it may be emitted, the end
// of its safe window and whether it is in force, for hold to act on from
// its own goroutine. The lease's values are made by another process (CMD,
// or whatever reads machine_id=N), which hold starts or tells only once
// that process may emit them; the factory makes one value per lease, to
// learn that moment.
type Watch struct {
	f       *nonce.Factory
	began   time.Time // of the operation in flight: its start event (the manager's goroutine only)
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
	// active: from the lease's grant (or a renewal) to its loss.
	active bool
}

// NewWatch returns a Watch that has seen no lease, with a factory that
// waits for one. baseKey, if not empty, is the factory's base key: the
// lease manager records its fingerprint beside the holder
// (nonce.Fingerprint); the factory masks nothing.
func NewWatch(baseKey []byte) (*Watch, error) {
	f, err := nonce.New(nonce.Config{BaseKey: baseKey, AllowDemoKey: true})
	if err != nil {
		return nil, fmt.Errorf("the lease's nonce factory: %w", err)
	}
	return &Watch{f: f, changed: make(chan struct{})}, nil
}

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

// Event is the manager's event hook: it follows each new lease, renewal
// and loss. It runs on the manager's goroutine, one event at a time.
//
// The manager trusts a lease until its TTL minus driver.SafetyMargin,
// counted from when the request was sent; the operation's start event
// comes before that, so the window w records ends no later than the
// factory's own deadline.
func (w *Watch) Event(e lease.Event) {
	now := time.Now()
	switch {
	case e.Kind == lease.EventStart:
		w.began = now
	case e.Kind == lease.EventEnd && e.Err == nil && (e.Op == lease.OpAcquire || e.Op == lease.OpReclaim):
		validUntil := w.began.Add(e.TTL - driver.SafetyMargin)
		var seq int
		w.update(func(v *leaseView) {
			// notBefore is unknown until first learns it: until then,
			// nothing may be emitted.
			*v = leaseView{seq: v.seq + 1, machineID: e.MachineID, notBefore: validUntil, validUntil: validUntil, active: true}
			seq = v.seq
		})
		go w.first(seq, e.MachineID)
	case e.Kind == lease.EventEnd && e.Err == nil && e.Op == lease.OpRenew:
		validUntil := w.began.Add(e.TTL - driver.SafetyMargin)
		w.update(func(v *leaseView) { v.validUntil, v.active = validUntil, true })
	case e.Kind == lease.EventLost:
		w.update(func(v *leaseView) { v.active = false })
	}
}

// first draws one value from the factory for lease seq on machineID: the
// factory hands it out only once a value with the new lease's machine ID
// may be emitted (after the previous holder's last one, allowing for
// clock skew), and its timestamp is that moment or later. It becomes the
// lease's notBefore. A draw that fails (the lease was lost or closed
// meanwhile) or that belongs to a later lease leaves the view alone.
func (w *Watch) first(seq, machineID int) {
	v, err := w.f.Sortable64()
	if err != nil {
		return
	}
	n := nonce.Split64(v, w.f.Epoch())
	w.update(func(v *leaseView) {
		if v.seq == seq && n.MachineID == machineID {
			v.notBefore = n.Time
		}
	})
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

// Factory is the nonce factory the lease protects: hold's manager
// activates it with each lease, and the Watch draws one value from it per
// lease to learn when the lease's machine ID may be used.
func (w *Watch) Factory() *nonce.Factory { return w.f }
