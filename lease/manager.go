package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/once-go/once/lease/driver"
)

// Manager holds one machine-ID lease for the life of a process and keeps
// its factories generating only while the lease is provably held. Create
// it with [Start]; it runs until [Manager.Close] (or a final loss, see
// [Manager.Done]), whatever becomes of the context passed to Start.
// ARCHITECTURE.md in the repository walks through what it does.
type Manager struct {
	s     driver.Strategy
	name  string
	o     Options
	tm    timing
	fs    factories
	state *stateFile
	fp    string // key fingerprint of the factories; "" when none
	// calls counts strategy calls that outlived their deadline and the
	// clean-up after each (see call.go).
	calls sync.WaitGroup

	life context.Context         // ends with Close, a final loss, or Start's context during Start
	stop context.CancelCauseFunc // ends life; cause ErrClosed from Close
	done chan struct{}           // closed when the loop has ended

	// mu guards what other goroutines see and change: the phase, the
	// machine ID and reason the public methods report, the factories'
	// enabled state (LeaseLost and Close disable them from the caller's
	// goroutine), and the end of the current lease's context.
	mu       sync.Mutex
	phase    phase
	id       int                     // machine ID of the lease held
	why      error                   // why no lease is held (phases lost, closed)
	lose     context.CancelCauseFunc // ends leaseCtx; set with each lease
	closeErr error                   // of the release at shutdown

	// Owned by the loop's goroutine (by Start's caller before the loop
	// runs).
	cur      driver.Lease    // the lease held or last held
	owed     bool            // cur may still be ours at the coordinator: release it
	leaseCtx context.Context // ends when cur is lost or the manager stops
	sent     time.Time       // when the request that granted or renewed cur was sent
	deadline time.Time       // end of cur's safe window (local monotonic clock)
	since    time.Time       // when cur was granted
	streak   int             // failed acquisitions and short-lived leases in a row
	reclaim  *driver.Lease   // from the state file, tried before acquiring
}

// phase is where the manager is in its life.
type phase int

const (
	acquiring phase = iota // no lease yet: Start is acquiring the first
	holding                // the factories run on cur
	lost                   // cur is no longer trusted; a new lease is sought
	closed                 // stopped: Close or a final loss
)

// Start acquires a machine-ID lease from s, activates opts.Factories with
// it and returns a running manager. It blocks until the first lease is
// held, or fails after opts.AcquireTimeout with an error matching
// [ErrTimeout] (and the last strategy error), leaving the factories
// untouched and releasing any lease it claimed: it waits up to
// Options.ReleaseTimeout more for a strategy call that outlived its
// deadline, so that what the call leaves behind is released before Start
// returns. [ErrConfig] from the options or the strategy fails at once, as
// does, with Options.RefuseKeyMismatch, a live holder in the pool whose key
// fingerprint differs from the factories'.
//
// ctx bounds the start only, as a dial's context bounds the dial: if it
// ends before the first lease is held, Start fails with its error (and
// releases any lease it claimed); once Start has returned, ending ctx
// changes nothing. The manager then runs until [Manager.Close], or a
// final loss. Its strategy calls get contexts that carry ctx's values
// but not its cancellation. A service's shutdown order is: stop accepting
// work, finish the work in flight (http.Server.Shutdown), Close the
// manager (which disables the factories, then releases the lease), close
// the coordinator's client (the database).
func Start(ctx context.Context, s driver.Strategy, opts Options) (*Manager, error) {
	switch {
	case ctx == nil:
		return nil, configError("nil context")
	case isNil(s):
		return nil, configError("nil Strategy")
	}
	if d, ok := s.(driver.DurationDefaulter); ok && opts.LeaseDuration == 0 {
		opts.LeaseDuration = d.DefaultLeaseDuration()
	}
	if r, ok := s.(driver.Ranged); ok && opts.LowFreeIDs == 0 {
		opts.LowFreeIDs = (r.MachineIDs().Len() + 7) / 8 // an eighth of the range, rounded up
	}
	o, tm, err := opts.validate()
	if err != nil {
		return nil, err
	}
	fs := protected(ctx, o)
	if err := fs.check(); err != nil {
		return nil, err
	}
	m := &Manager{s: s, name: s.Name(), o: o, tm: tm, fs: fs, fp: fs.fingerprint(), id: -1, done: make(chan struct{})}
	if o.RefuseKeyMismatch {
		if _, ok := s.(driver.Lister); !ok {
			return nil, configError("RefuseKeyMismatch needs a strategy that can list the machine IDs held (driver.Lister); %s cannot", m.name)
		}
		if m.fp == "" {
			return nil, configError("RefuseKeyMismatch needs factories with a base key (nonce.Config.BaseKey), the same in all")
		}
	}
	// Every strategy call records the factories' key fingerprint beside
	// its holder.
	ctx = driver.WithKeyFingerprint(ctx, m.fp)
	if o.StateFile != "" {
		if _, ok := s.(driver.Reclaimer); !ok {
			return nil, configError("StateFile needs a strategy that can reclaim a lease (driver.Reclaimer); %s cannot", m.name)
		}
	}
	if err := m.own(); err != nil {
		return nil, err
	}
	if o.StateFile != "" {
		if m.state, err = openStateFile(o.StateFile); err != nil {
			m.disown()
			return nil, err
		}
		if l, ok := m.state.load(m.name, m.o.Logger); ok {
			m.reclaim = &l
		}
	}
	// The manager lives until Close or a final loss, with ctx's values;
	// ctx itself bounds the start only.
	m.life, m.stop = context.WithCancelCause(context.WithoutCancel(ctx))
	stopStart := context.AfterFunc(ctx, func() { m.stop(context.Cause(ctx)) })
	if o.RefuseKeyMismatch {
		if err := m.refuseKeyMismatch(); err != nil {
			stopStart()
			m.stop(err)
			m.state.close()
			m.settle()
			return nil, err
		}
	}
	err = m.acquire(sourceInitial)
	switch {
	case err != nil:
		m.stop(err)
		m.state.close()
		m.settle()
		return nil, err
	case !stopStart():
		// ctx ended as the first lease was installed: Start fails, and
		// the lease is released.
		m.stop(context.Cause(ctx))
		m.shutdown()
		m.settle()
		return nil, m.canceled(sourceInitial, nil)
	}
	go m.run()
	return m, nil
}

// settle ends a failed Start: it waits, up to ReleaseTimeout, for the
// strategy calls that outlived their deadline and the release of what
// they leave behind (as Close does), then gives the factories up.
func (m *Manager) settle() {
	waitGroup(context.Background(), &m.calls, m.o.ReleaseTimeout)
	m.disown()
}

// run is the manager's goroutine: hold the lease, handle its loss, acquire
// a new one, until the manager stops.
func (m *Manager) run() {
	defer close(m.done)
	defer m.disown() // before Done is closed: the factories may be protected again
	for {
		reason := m.hold()
		if m.stopping() {
			m.shutdown()
			return
		}
		m.drop(reason)
		if m.s.Deterministic() && !m.o.ReacquireDeterministic {
			m.finish()
			return
		}
		if m.acquire(sourceReacquire) != nil { // fails only when stopping
			m.shutdown()
			return
		}
	}
}

// hold renews the current lease on schedule until it is lost or the
// manager stops, and returns why.
func (m *Manager) hold() error {
	for {
		wait := time.Until(m.sent.Add(m.tm.renewAfter(m.o.RenewInterval, m.cur.TTL)))
		if err := m.pause(wait); err != nil {
			return err
		}
		if !time.Now().Before(m.deadline) { // suspended past the window
			return fmt.Errorf("%w: safe window of machine ID %d ended before its renewal ran", ErrExpired, m.cur.MachineID)
		}
		if err := m.renew(); err != nil {
			return err
		}
	}
}

// pause waits for d; it returns early, with the reason, when the lease is
// lost (LeaseLost) or the manager stops.
func (m *Manager) pause(d time.Duration) error {
	t := time.NewTimer(max(d, 0))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-m.leaseCtx.Done():
		return context.Cause(m.leaseCtx)
	}
}

// renew renews the current lease, retrying transient failures with backoff
// while its safe window lasts; every call is bounded by the end of the
// window. It returns nil once renewed, else the loss reason.
func (m *Manager) renew() error {
	for attempt := 1; ; attempt++ {
		if !time.Now().Before(m.deadline) {
			return fmt.Errorf("%w: safe window of machine ID %d ended while renewals failed", ErrExpired, m.cur.MachineID)
		}
		cur := m.cur
		o := m.call(m.leaseCtx, OpRenew, sourceScheduled, cur.MachineID, m.deadline, &cur, func(ctx context.Context) (driver.Lease, error) {
			return m.s.Renew(ctx, cur, m.o.LeaseDuration)
		})
		m.endCall(m.leaseCtx, OpRenew, sourceScheduled, cur.MachineID, o, o.err)
		switch {
		case m.leaseCtx.Err() != nil:
			return context.Cause(m.leaseCtx)
		case o.err == nil:
			if err := m.applyRenewal(o); err != nil {
				return err
			}
			m.countFree(sourceScheduled)
			return nil
		case errors.Is(o.err, ErrLost):
			m.owed = false // the coordinator says it is not ours: nothing to release
			return o.err
		case o.cut:
			return fmt.Errorf("%w: renewal of machine ID %d still unanswered at the end of its safe window (%v)", ErrTimeout, cur.MachineID, o.err)
		}
		delay := min(backoff(runBackoffBase, m.o.RenewInterval, attempt, jitter), time.Until(m.deadline))
		m.emit(record{Event: Event{Kind: EventRetry, Op: OpRenew, MachineID: cur.MachineID, Delay: delay, Err: o.err}, source: sourceScheduled, attempt: attempt})
		if err := m.pause(delay); err != nil {
			return err
		}
	}
}

// applyRenewal makes a successful renewal current: checks it, then moves
// the factories' deadline, or re-enables them if their own deadline passed
// meanwhile (the same lease, so their counters continue).
func (m *Manager) applyRenewal(o outcome) error {
	l := o.l
	if l.MachineID != m.cur.MachineID {
		return fmt.Errorf("%w: strategy %s renewed machine ID %d as %d", ErrLost, m.name, m.cur.MachineID, l.MachineID)
	}
	if !m.tm.legal(l.TTL) {
		return fmt.Errorf("%w: strategy %s renewed machine ID %d for %v, below %v", ErrIllegalTTL, m.name, l.MachineID, l.TTL, m.tm.minTTL)
	}
	validUntil := o.sent.Add(m.tm.safe(l.TTL))
	if !time.Now().Before(validUntil) {
		return fmt.Errorf("%w: renewal of machine ID %d answered after its own safe window", ErrTimeout, l.MachineID)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.phase != holding {
		return m.why
	}
	// A factory whose own deadline passed (even while Extend was on its
	// way) stays disabled after Extend, which only moves the deadline:
	// enable it again.
	late := !time.Now().Before(m.deadline)
	if !late {
		m.fs.extend(validUntil)
		late = !time.Now().Before(m.deadline)
	}
	if late {
		if err := m.fs.enable(validUntil); err != nil {
			return fmt.Errorf("%w: re-enabling factories after a late renewal of machine ID %d: %v", ErrExpired, l.MachineID, err)
		}
	}
	m.cur, m.sent, m.deadline, m.streak = l, o.sent, validUntil, 0
	return nil
}

// drop runs the loss path: the factories are disabled (unless LeaseLost
// did it already, whose reason then stands), the lost event follows, then
// a best-effort release of a lease the coordinator may still count as
// ours.
func (m *Manager) drop(reason error) {
	m.mu.Lock()
	if m.phase == holding {
		m.loseLocked(lost, reason)
	}
	reason = m.why
	m.mu.Unlock()
	remaining := max(time.Until(m.sent.Add(m.cur.TTL)), 0)
	m.emit(record{Event: Event{Kind: EventLost, MachineID: m.cur.MachineID, Err: reason, TTL: remaining}, source: sourceScheduled})
	if m.owed {
		m.owed = false
		m.release(m.cur, sourceReacquire)
	}
	if err := m.state.clear(); err != nil {
		m.o.Logger.Warn("lease state file not cleared", "path", m.o.StateFile, "error", err)
	}
	if time.Since(m.since) < m.o.RenewInterval {
		m.streak++ // short-lived: back off before the next, as after a failure
	}
}

// finish ends the manager after a final loss (deterministic strategy):
// Err keeps reporting the loss.
func (m *Manager) finish() {
	m.mu.Lock()
	m.phase = closed
	why := m.why
	m.mu.Unlock()
	m.stop(why)
	m.state.close()
}

// shutdown disables the factories and releases the lease, on Close (or
// when Start's context ends as Start installs the first lease).
func (m *Manager) shutdown() {
	m.mu.Lock()
	m.loseLocked(closed, ErrClosed)
	m.mu.Unlock()
	var err error
	if m.owed {
		m.owed = false
		err = m.release(m.cur, sourceShutdown)
	}
	if err == nil {
		// Released: nothing to reclaim. A failed release keeps the file,
		// so a restart can take the lease back rather than wait it out.
		err = m.state.clear()
	}
	m.state.close()
	m.mu.Lock()
	m.closeErr = err
	m.mu.Unlock()
}

// loseLocked stops trusting the lease: factories first, then the state
// the public methods report, then (on a loss) the lease's context, which
// wakes the loop; Close wakes it by ending the manager's life. A closed
// manager stays closed. m.mu must be held.
func (m *Manager) loseLocked(p phase, reason error) {
	m.fs.disable()
	if m.phase == closed {
		return
	}
	m.phase, m.id, m.why = p, -1, reason
	if p == lost && m.lose != nil {
		m.lose(reason)
	}
}

// stopping reports whether Close was called (or, in Start, whether Start's
// context ended).
func (m *Manager) stopping() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.phase == closed || m.life.Err() != nil
}

// MachineID returns the machine ID of the lease held now, or -1 while none
// is (after a loss, before a new lease, and after shutdown).
func (m *Manager) MachineID() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.id
}

// Done is closed when the manager stops: after Close, or when a lease is
// lost for good (a deterministic strategy without ReacquireDeterministic).
// Err then says why.
func (m *Manager) Done() <-chan struct{} { return m.done }

// Err returns nil while a lease is held; otherwise why not: the loss
// reason ([ErrLost], [ErrExpired], [ErrTimeout], [ErrExternal],
// [ErrIllegalTTL]) while re-acquiring or after a final loss, [ErrClosed]
// after shutdown.
func (m *Manager) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.why
}

// LeaseLost tells the manager that the application has reason to believe
// the lease is lost (say, a coordinator-side alert). The factories are
// disabled before LeaseLost returns; the manager then runs its loss path
// (the lost event, release, re-acquisition) with a reason matching
// [ErrExternal]. While no lease is held the call does nothing: no event
// is emitted again and the re-acquisition backoff is not reset.
func (m *Manager) LeaseLost(reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.phase != holding {
		m.o.Logger.Debug("lease loss signal ignored: no lease held", "strategy", m.name, "reason", reason)
		return
	}
	m.loseLocked(lost, fmt.Errorf("%w: %s", ErrExternal, reason))
}

// Close stops the manager: it disables the factories before anything
// else, cancels any strategy call in flight, releases the lease (bounded
// by Options.ReleaseTimeout) and waits for the manager's goroutine, then
// up to ReleaseTimeout more for strategy calls that outlived their
// deadline and the release of what they leave behind. It returns the
// release error, or ctx's error if ctx ends first (the release goes on in
// the background, bounded as above). Calling it again waits again and
// returns the same result.
func (m *Manager) Close(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	m.mu.Lock()
	m.loseLocked(closed, ErrClosed)
	m.mu.Unlock()
	m.stop(ErrClosed)
	select {
	case <-m.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if !waitGroup(ctx, &m.calls, m.o.ReleaseTimeout) {
		return ctx.Err()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closeErr
}

// waitGroup waits for wg up to d; false if ctx ended first.
func waitGroup(ctx context.Context, wg *sync.WaitGroup, d time.Duration) bool {
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
		return false
	}
	return true
}
