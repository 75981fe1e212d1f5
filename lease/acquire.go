package lease

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// jitter draws a backoff jitter in [1ns, base].
func jitter(base time.Duration) time.Duration { return rand.N(base) + 1 }

// acquire obtains a lease and activates the factories with it, retrying
// with backoff. In Start (SourceInitial) the budget is AcquireTimeout with
// base 100ms and ErrConfig aborts; after a loss (SourceReacquire) it keeps
// trying with base 1s up to the renew interval until the manager stops.
// It returns nil once the factories run on the new lease.
func (m *Manager) acquire(source Source) error {
	ctx := m.runCtx
	initial := source == SourceInitial
	var budgetEnd time.Time
	if initial && m.o.AcquireTimeout != NoTimeout {
		budgetEnd = time.Now().Add(m.o.AcquireTimeout)
	}
	base, attempt := runBackoffBase, m.streak
	if initial {
		base, attempt = startBackoffBase, 0
	}
	var lastErr error
	tries := 0
	for {
		if attempt > 0 {
			limit := m.o.RenewInterval
			if !budgetEnd.IsZero() {
				limit = time.Until(budgetEnd)
			}
			delay := backoff(base, limit, attempt, jitter)
			if delay > 0 {
				m.emit(Event{Kind: EventRetry, Op: OpAcquire, Source: source, MachineID: -1, Attempt: attempt, Delay: delay, Err: lastErr})
				if !sleep(ctx, delay) {
					return m.acquireCanceled(source, lastErr)
				}
			}
		}
		if !budgetEnd.IsZero() && !time.Now().Before(budgetEnd) {
			return fmt.Errorf("%w: no machine ID from strategy %s within the %v acquire timeout (%d attempts): %w",
				ErrTimeout, m.name, m.o.AcquireTimeout, tries, lastErr)
		}
		callEnd := budgetEnd
		if !initial && m.o.AcquireTimeout != NoTimeout {
			callEnd = time.Now().Add(m.o.AcquireTimeout)
		}
		tries++
		g, err := m.tryAcquire(ctx, source, callEnd)
		if err == nil {
			err = m.install(g, source)
			if err == nil {
				return nil
			}
		}
		if m.stopping() {
			return m.acquireCanceled(source, err)
		}
		if initial && errors.Is(err, ErrConfig) {
			return err
		}
		lastErr = err
		attempt++
		if !initial {
			m.streak = attempt
		}
	}
}

func (m *Manager) acquireCanceled(source Source, last error) error {
	if source == SourceInitial {
		return fmt.Errorf("lease: start canceled (%w) before a machine ID was held; last error: %v", context.Cause(m.runCtx), last)
	}
	return ErrClosed
}

// tryAcquire makes one attempt: reclaim the lease in the state file if
// there is one, else acquire. A lease that cannot be used (illegal TTL,
// safe window already over, manager stopping) is released.
func (m *Manager) tryAcquire(ctx context.Context, source Source, deadline time.Time) (outcome, error) {
	if m.reclaim != nil {
		o := m.strategyCall(ctx, OpReclaim, source, m.reclaim.MachineID, deadline, func(c context.Context) (Lease, error) {
			return m.s.(Reclaimer).Reclaim(c, *m.reclaim, m.o.LeaseDuration)
		})
		if o.err == nil {
			m.reclaim = nil
			return m.usable(ctx, source, o)
		}
		if errors.Is(o.err, ErrRetry) || errors.Is(o.err, ErrTimeout) || ctx.Err() != nil {
			return o, o.err // outcome unknown: try reclaiming again
		}
		m.reclaim = nil // gone (or unusable): acquire a new one now
	}
	o := m.strategyCall(ctx, OpAcquire, source, -1, deadline, func(c context.Context) (Lease, error) {
		return m.s.Acquire(c, m.o.LeaseDuration)
	})
	if o.err != nil {
		return o, o.err
	}
	return m.usable(ctx, source, o)
}

// usable checks a granted lease before the factories may use it, and
// releases it if they may not.
func (m *Manager) usable(ctx context.Context, source Source, o outcome) (outcome, error) {
	var err error
	switch l := o.l; {
	case l.MachineID < 0 || l.MachineID > maxMachineID:
		err = fmt.Errorf("%w: strategy %s granted machine ID %d, outside 0..%d", ErrConfig, m.name, l.MachineID, maxMachineID)
	case !m.tm.legal(l.TTL):
		err = fmt.Errorf("%w: strategy %s granted %v for machine ID %d, below %v", ErrIllegalTTL, m.name, l.TTL, l.MachineID, m.tm.minTTL)
	case !time.Now().Before(o.sent.Add(m.tm.safe(l.TTL))):
		err = fmt.Errorf("%w: acquiring machine ID %d took %v, past its safe window", ErrTimeout, l.MachineID, o.took)
	case ctx.Err() != nil:
		err = ErrClosed
	}
	if err != nil {
		if ctx.Err() != nil {
			source = SourceShutdown
		}
		m.release(o.l, source)
	}
	return o, err
}

// install activates the factories with a fresh lease and makes it current.
func (m *Manager) install(o outcome, source Source) error {
	l := o.l
	notBefore := handoffNotBefore(l.PrevExpiry, m.o.HandoffSkew)
	validUntil := o.sent.Add(m.tm.safe(l.TTL))
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		m.release(l, SourceShutdown)
		return ErrClosed
	}
	if err := m.fs.activate(l.MachineID, notBefore, validUntil); err != nil {
		m.mu.Unlock()
		m.release(l, source)
		return fmt.Errorf("%w: machine ID %d: %w", ErrConfig, l.MachineID, err)
	}
	select { // a loss signal for an earlier lease must not hit this one
	case <-m.lossCh:
	default:
	}
	m.held, m.machineID, m.err = true, l.MachineID, nil
	m.mu.Unlock()

	m.cur, m.sent, m.deadline = l, o.sent, validUntil
	m.holding, m.since = true, o.sent
	if err := m.state.store(m.name, l); err != nil {
		m.o.Logger.Warn("lease state file not written", "path", m.o.StateFile, "error", err)
	}
	m.checkClock(l, o, notBefore)
	return nil
}

// checkClock warns when the coordinator's clock and ours disagree by more
// than the hand-off skew allows: the guard then makes the factories wait,
// or does not protect as intended.
func (m *Manager) checkClock(l Lease, o outcome, notBefore time.Time) {
	if !l.CoordinatorNow.IsZero() {
		mid := o.sent.Add(o.took / 2)
		if off := l.CoordinatorNow.Sub(mid.Round(0)); off > m.o.HandoffSkew || -off > m.o.HandoffSkew {
			m.o.Logger.Warn("lease coordinator clock differs from the local clock by more than HandoffSkew",
				"strategy", m.name, "offset", off, "handoff_skew", m.o.HandoffSkew)
		}
	}
	if wait := time.Until(notBefore); wait > 0 {
		m.o.Logger.Info("lease hand-off guard: factories start after the previous holder's expiry",
			"strategy", m.name, "machine_id", l.MachineID, "wait", wait)
	}
}

// strategyCall is call with start and end events.
func (m *Manager) strategyCall(ctx context.Context, op Op, source Source, id int, deadline time.Time, fn func(context.Context) (Lease, error)) outcome {
	m.emit(Event{Kind: EventStart, Op: op, Source: source, MachineID: id})
	o := m.call(ctx, deadline, op != OpRelease, fn)
	e := Event{Kind: EventEnd, Op: op, Source: source, MachineID: id, Result: resultOf(o.err), Err: o.err, Duration: o.took}
	if o.err == nil && op != OpRelease {
		e.MachineID, e.GrantedTTL = o.l.MachineID, o.l.TTL
	}
	m.emit(e)
	return o
}

// release gives l up, best effort, bounded by ReleaseTimeout (and by the
// context of Close, when shutting down on its behalf).
func (m *Manager) release(l Lease, source Source) error {
	parent := context.Background()
	if source == SourceShutdown {
		m.mu.Lock()
		if m.closeCtx != nil {
			parent = m.closeCtx
		}
		m.mu.Unlock()
	}
	o := m.strategyCall(parent, OpRelease, source, l.MachineID, time.Now().Add(m.o.ReleaseTimeout), func(c context.Context) (Lease, error) {
		return Lease{}, m.s.Release(c, l)
	})
	return o.err
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
