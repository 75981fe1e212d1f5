package lease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
	"github.com/once-go/once/nonce"
)

// acquire obtains a lease and installs it, retrying with backoff until it
// succeeds or the manager stops. In Start (sourceInitial) the budget is
// AcquireTimeout and ErrConfig aborts; after a loss (sourceReacquire) it
// keeps trying, each attempt bounded by AcquireTimeout. It returns nil
// once the factories run on the new lease.
func (m *Manager) acquire(source origin) error {
	r := m.newRetries(source)
	for {
		if err := r.pause(m); err != nil {
			return err
		}
		err := m.attempt(source, r.callDeadline())
		switch {
		case err == nil:
			return nil
		case m.stopping():
			return m.canceled(source, err)
		case source == sourceInitial && errors.Is(err, ErrConfig):
			return err
		}
		r.failed(err)
		if source == sourceReacquire {
			m.streak = r.step
		}
	}
}

// canceled is acquire's error when the manager stops first.
func (m *Manager) canceled(source origin, last error) error {
	switch {
	case source == sourceInitial && last == nil:
		return fmt.Errorf("lease: start canceled (%w) as the first machine ID was installed; it was released", context.Cause(m.life))
	case source == sourceInitial:
		return fmt.Errorf("lease: start canceled (%w) before a machine ID was held; last error: %v", context.Cause(m.life), last)
	}
	return ErrClosed
}

// retries is the backoff policy of one acquire: base 100ms and the time
// left of AcquireTimeout as the limit in Start, base 1s and the renew
// interval as the limit after a loss (starting from the manager's streak
// of failures, so a crash loop backs off).
//
// Retries of the first acquisition log at INFO (a busy pool or a
// coordinator still starting is routine at boot), except one WARN for the
// first retry that will run after half the budget is spent (half of
// defaultAcquireTimeout with noTimeout): a Start that times out has always
// warned first. Retries after a loss, with no lease held, warn.
type retries struct {
	source origin
	base   time.Duration
	step   int       // backoff step: failed attempts so far (plus the streak)
	tries  int       // attempts made
	began  time.Time // when acquire began
	end    time.Time // end of the budget; zero: none
	warnAt time.Duration
	warned bool
	last   error // of the last attempt
	budget time.Duration
}

func (m *Manager) newRetries(source origin) *retries {
	r := &retries{source: source, base: runBackoffBase, step: m.streak, began: time.Now(), budget: m.o.AcquireTimeout}
	r.warnAt = m.o.AcquireTimeout / 2
	if m.o.AcquireTimeout == noTimeout {
		r.warnAt = defaultAcquireTimeout / 2
	}
	if source == sourceInitial {
		r.base, r.step = startBackoffBase, 0
		if m.o.AcquireTimeout != noTimeout {
			r.end = r.began.Add(m.o.AcquireTimeout)
		}
	}
	return r
}

// pause waits before the next attempt (not before the first of Start), and
// fails when the budget is spent or the manager stops.
func (r *retries) pause(m *Manager) error {
	if r.step > 0 {
		limit := m.o.RenewInterval
		if !r.end.IsZero() {
			limit = time.Until(r.end)
		}
		if delay := backoff(r.base, limit, r.step, jitter); delay > 0 {
			e := record{Event: Event{Kind: EventRetry, Op: OpAcquire, MachineID: -1, Delay: delay, Err: r.last}, source: r.source, attempt: r.step}
			level, msg := eventLevel(e)
			if r.source == sourceInitial {
				level = slog.LevelInfo
				if !r.warned && time.Since(r.began)+delay >= r.warnAt {
					level, msg, r.warned = slog.LevelWarn, "lease acquire retry past half the acquire timeout", true
				}
			}
			m.emitLog(e, level, msg)
			if !sleep(m.life, delay) {
				return m.canceled(r.source, r.last)
			}
		}
	}
	if !r.end.IsZero() && !time.Now().Before(r.end) {
		return fmt.Errorf("%w: no machine ID from strategy %s within the %v acquire timeout (%d attempts): %w",
			ErrTimeout, m.name, r.budget, r.tries, r.last)
	}
	return nil
}

// callDeadline bounds the next attempt: the end of Start's budget, or
// AcquireTimeout from now after a loss.
func (r *retries) callDeadline() time.Time {
	r.tries++
	if r.source == sourceReacquire && r.budget != noTimeout {
		return time.Now().Add(r.budget)
	}
	return r.end
}

func (r *retries) failed(err error) { r.last, r.step = err, r.step+1 }

// jitter draws a backoff jitter in [1ns, base].
func jitter(base time.Duration) time.Duration { return rand.N(base) + 1 }

// attempt makes one acquisition: it reclaims the lease in the state file
// if there is one, else acquires, then installs the lease. A lease that
// cannot be used, or that a failed call may have claimed, is released.
func (m *Manager) attempt(source origin, deadline time.Time) error {
	op, fn, on := OpAcquire, func(ctx context.Context) (driver.Lease, error) { return m.s.Acquire(ctx, m.o.LeaseDuration) }, (*driver.Lease)(nil)
	id := -1
	if m.reclaim != nil && !machineIDs(m.s).Contains(m.reclaim.MachineID) {
		// The state file's lease lies outside the IDs the strategy may
		// take now (its range changed): give it back and acquire.
		m.release(*m.reclaim, source)
		m.reclaim = nil
	}
	if m.reclaim != nil {
		rl := *m.reclaim
		op, on, id = OpReclaim, &rl, rl.MachineID
		fn = func(ctx context.Context) (driver.Lease, error) {
			return m.s.(driver.Reclaimer).Reclaim(ctx, rl, m.o.LeaseDuration)
		}
	}
	o := m.call(m.life, op, source, id, deadline, on, fn)
	if o.err != nil {
		m.endCall(m.life, op, source, id, o, o.err)
		if o.l.Token != "" && !o.abandoned {
			m.release(o.l, source) // a claim whose outcome is unknown
		}
		if op == OpReclaim && !errors.Is(o.err, driver.ErrRetry) && !errors.Is(o.err, ErrTimeout) && m.life.Err() == nil {
			m.reclaim = nil // gone, or unusable: acquire a new lease next
		}
		return o.err
	}
	m.reclaim = nil
	if err := m.usable(o.l, o); err != nil {
		m.endCall(m.life, op, source, o.l.MachineID, o, err)
		m.release(o.l, source)
		return err
	}
	return m.install(op, source, o)
}

// usable checks a granted lease before the factories may use it.
func (m *Manager) usable(l driver.Lease, o outcome) error {
	switch {
	case !leasekit.ValidID(l.MachineID):
		return fmt.Errorf("%w: strategy %s granted machine ID %d, outside 0..%d", ErrConfig, m.name, l.MachineID, nonce.MaxMachineID)
	case !m.tm.legal(l.TTL):
		return fmt.Errorf("%w: strategy %s granted %v for machine ID %d, below %v", ErrIllegalTTL, m.name, l.TTL, l.MachineID, m.tm.minTTL)
	case !time.Now().Before(o.sent.Add(m.tm.safe(l.TTL))):
		return fmt.Errorf("%w: acquiring machine ID %d took %v, past its safe window", ErrTimeout, l.MachineID, o.took)
	case m.life.Err() != nil:
		return ErrClosed
	}
	return nil
}

// install activates the factories with a fresh lease and makes it current,
// then emits the acquisition's end event: whoever hears of the lease finds
// the factories running on it and MachineID reporting it.
func (m *Manager) install(op Op, source origin, o outcome) error {
	l := o.l
	notBefore := time.Time{}
	switch {
	case op == OpReclaim:
		notBefore = reclaimNotBefore(l, time.Now(), m.o.HandoffSkew, m.state.clockBound())
	case !fixedID(m.s, l):
		notBefore = handoffNotBefore(l, time.Now(), m.o.HandoffSkew, m.tm.margin)
	}
	validUntil := o.sent.Add(m.tm.safe(l.TTL))
	m.mu.Lock()
	err := ErrClosed
	if m.phase != closed {
		err = m.fs.activate(l.MachineID, notBefore, validUntil)
		if err != nil {
			err = fmt.Errorf("%w: machine ID %d: %w", ErrConfig, l.MachineID, err)
		}
	}
	if err != nil {
		m.mu.Unlock()
		m.endCall(m.life, op, source, l.MachineID, o, err)
		m.release(l, source)
		return err
	}
	m.leaseCtx, m.lose = context.WithCancelCause(m.life)
	m.phase, m.id, m.why = holding, l.MachineID, nil
	m.mu.Unlock()

	m.cur, m.owed, m.sent, m.deadline, m.since = l, true, o.sent, validUntil, o.sent
	if err := m.state.store(m.name, l); err != nil {
		m.o.Logger.Warn("lease state file not written", "path", m.o.StateFile, "error", err)
	}
	m.endCall(m.life, op, source, l.MachineID, o, nil)
	m.checkClock(l, o, notBefore)
	m.countFree(source)
	return nil
}

// fixedID reports whether l is a fixed machine ID that no coordinator
// hands over (env, host list): a deterministic strategy whose lease
// reports no clock reading and no release hold. The platform promises
// that no other process runs with it, so there is no previous holder to
// guard against. A deterministic strategy backed by a coordinator (the
// conflict guard) reports the coordinator's readings and gets the hand-off
// guard like any lease.
func fixedID(s driver.Strategy, l driver.Lease) bool {
	return s.Deterministic() && l.PrevExpiry.IsZero() && l.CoordinatorNow.IsZero() && l.ReleaseHold <= 0
}

// checkClock warns when the coordinator's clock and ours disagree by more
// than the hand-off skew allows: the guard then makes the factories wait,
// or does not protect as intended.
func (m *Manager) checkClock(l driver.Lease, o outcome, notBefore time.Time) {
	if !l.CoordinatorNow.IsZero() {
		mid := o.sent.Add(o.took / 2)
		if off := l.CoordinatorNow.Sub(mid.Round(0)); off > m.o.HandoffSkew || -off > m.o.HandoffSkew {
			m.o.Logger.Warn("lease coordinator clock differs from the local clock by more than HandoffSkew",
				"strategy", m.name, "offset", off, "handoff_skew", m.o.HandoffSkew)
		}
	}
	if wait := time.Until(notBefore); wait > 0 {
		m.o.Logger.Info("lease hand-off guard: the factories' first timestamp waits for the previous holder's last possible one",
			"strategy", m.name, "machine_id", l.MachineID, "wait", wait)
	}
}

// sleep waits for d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
