package nonce

import "time"

// Lifecycle: what a lease manager calls. Generators never take f.mu; they
// see the lifecycle only through f.state (nil = disabled) and the state's
// deadline, so Disable and expiry take effect for every goroutine at once.
// Calls already past their load of f.state when the factory is disabled
// may still complete; their timestamps were checked against the deadline.

// Activate starts a new lease: machine ID machineID, deadline validUntil
// (zero: none), and a first timestamp that is the latest of the clock,
// notBefore, and one millisecond after the highest timestamp this factory
// ever emitted. Values drawn from the previous lease by calls still in
// flight never repeat in the new one.
//
// If that first timestamp is ahead of the clock (a notBefore in the
// future), generators wait until the clock reaches it, sleeping at most
// 10 ms at a time and returning ErrDisabled as soon as the factory is
// disabled or the deadline passes; the wait is thus bounded by notBefore
// and by validUntil.
//
// Errors: ErrConfig for a machine ID out of range (the factory is left as
// it was); ErrConfig for a clock outside the epoch's range and ErrDisabled
// for a validUntil that has already passed (the factory is left disabled,
// with no lease to Enable).
func (f *Factory) Activate(machineID int, notBefore, validUntil time.Time) error {
	if err := checkMachineID(machineID); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()

	f.reason.Store(reasonDisabled)
	f.state.Store(nil)
	f.stopTimerLocked()
	if old := f.cur; old != nil {
		f.next = max(f.next, old.seal()+1)
		f.cur = nil
	}

	now := f.wall()
	initAt, err := f.clockMs(now)
	if err != nil {
		return err
	}
	initAt = max(initAt, f.next)
	if !notBefore.IsZero() {
		if ns := notBefore.UnixNano() - f.epochNs; ns > 0 {
			initAt = max(initAt, uint64((ns+msPerNs-1)/msPerNs))
		}
	}
	if initAt >= maxTS {
		return errOverflow
	}
	if !validUntil.IsZero() && !validUntil.After(now) {
		f.reason.Store(reasonExpired)
		return errExpired
	}
	st := f.newState(machineID, initAt, now)
	f.cur = st
	f.machineID.Store(int32(machineID))
	f.armLocked(st, validUntil, now)
	f.state.Store(st)
	return nil
}

// Enable re-enables the current lease after a Disable (the same lease was
// renewed): counters continue where they were. validUntil is the new
// deadline (zero: none). Errors (ErrDisabled): no lease to resume (no
// Activate yet on a factory that is not Fixed, or a failed Activate), or
// validUntil has already passed.
func (f *Factory) Enable(validUntil time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.cur
	if st == nil {
		return errAwaiting
	}
	now := f.wall()
	if !validUntil.IsZero() && !validUntil.After(now) {
		f.reason.Store(reasonExpired)
		f.state.Store(nil)
		return errExpired
	}
	f.armLocked(st, validUntil, now)
	f.state.Store(st)
	return nil
}

// Extend moves the current lease's deadline to validUntil (zero: none)
// without enabling the factory. A validUntil in the past disables it.
func (f *Factory) Extend(validUntil time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cur != nil {
		f.armLocked(f.cur, validUntil, f.wall())
	}
}

// Disable stops generation at once for all goroutines: every generator
// returns ErrDisabled until Enable or Activate.
func (f *Factory) Disable() {
	f.reason.Store(reasonDisabled)
	f.state.Store(nil)
}

// armLocked sets st's deadline and schedules the timer that disables the
// factory when it passes, whatever the lease manager is doing then.
func (f *Factory) armLocked(st *state, validUntil, now time.Time) {
	f.stopTimerLocked()
	if validUntil.IsZero() {
		st.deadline.Store(noDeadline)
		return
	}
	st.deadline.Store(int64(validUntil.Sub(st.baseT)))
	seq := f.timerSeq
	f.timer = time.AfterFunc(validUntil.Sub(now), func() { f.onDeadline(st, seq) })
}

func (f *Factory) stopTimerLocked() {
	f.timerSeq++
	if f.timer != nil {
		f.timer.Stop()
		f.timer = nil
	}
}

// onDeadline runs on the deadline timer. It disables the factory when st is
// still current and its deadline has passed on the factory's clock;
// otherwise (an injected clock lagging real time) it checks again later.
func (f *Factory) onDeadline(st *state, seq uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if seq != f.timerSeq || f.cur != st {
		return // re-armed or replaced meanwhile
	}
	left := st.deadline.Load() - f.elapsed(st)
	if left > 0 {
		f.timer = time.AfterFunc(time.Duration(left), func() { f.onDeadline(st, seq) })
		return
	}
	f.timer = nil
	if f.state.Load() == st {
		f.reason.Store(reasonExpired)
		f.state.Store(nil)
	}
}

// expire is called by a generator that read the clock at or past st's
// deadline. It disables the factory (so that counters' fast paths stop
// too) and returns the expiry error.
func (f *Factory) expire(st *state) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.state.Load() == st && f.elapsed(st) >= st.deadline.Load() {
		f.reason.Store(reasonExpired)
		f.state.Store(nil)
	}
	return errExpired
}
