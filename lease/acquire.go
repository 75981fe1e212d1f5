package lease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
//
// Retries of the first acquisition are logged at INFO (a busy pool or a
// coordinator still starting is routine at boot), except one WARN for the
// first retry that will run after half the acquire budget is spent (half
// of DefaultAcquireTimeout with NoTimeout): a Start that times out has
// always warned first. Retries after a loss, with no lease held, are WARN.
func (m *Manager) acquire(source Source) error {
	ctx := m.runCtx
	initial := source == SourceInitial
	began := time.Now()
	var budgetEnd time.Time
	if initial && m.o.AcquireTimeout != NoTimeout {
		budgetEnd = began.Add(m.o.AcquireTimeout)
	}
	warnAfter := m.o.AcquireTimeout / 2
	if m.o.AcquireTimeout == NoTimeout {
		warnAfter = DefaultAcquireTimeout / 2
	}
	warned := false
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
				e := Event{Kind: EventRetry, Op: OpAcquire, Source: source, MachineID: -1, Attempt: attempt, Delay: delay, Err: lastErr}
				level, msg := eventLevel(e)
				if initial {
					level = slog.LevelInfo
					if !warned && time.Since(began)+delay >= warnAfter {
						level, warned = slog.LevelWarn, true
						msg = "lease acquire retry past half the acquire timeout"
					}
				}
				m.emitLog(e, level, msg)
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
			err = m.install(g)
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

// grant is a lease obtained by one acquisition attempt, not yet installed.
// Its end event is still due: install emits it once the factories run on
// the lease, or with the reason the lease could not be used.
type grant struct {
	op     Op // OpAcquire or OpReclaim
	source Source
	o      outcome
}

// tryAcquire makes one attempt: reclaim the lease in the state file if
// there is one, else acquire. A lease that cannot be used (illegal TTL,
// safe window already over, manager stopping) is released.
func (m *Manager) tryAcquire(ctx context.Context, source Source, deadline time.Time) (grant, error) {
	if m.reclaim != nil {
		rl := *m.reclaim
		o := m.startCall(ctx, OpReclaim, source, rl.MachineID, deadline, subject{on: &rl}, func(c context.Context) (Lease, error) {
			return m.s.(Reclaimer).Reclaim(c, rl, m.o.LeaseDuration)
		})
		if o.err == nil {
			m.reclaim = nil
			return m.usable(ctx, grant{OpReclaim, source, o})
		}
		m.endCall(ctx, OpReclaim, source, rl.MachineID, o, o.err, time.Time{})
		if errors.Is(o.err, ErrRetry) || errors.Is(o.err, ErrTimeout) || ctx.Err() != nil {
			return grant{}, o.err // outcome unknown: try reclaiming again
		}
		m.reclaim = nil // gone (or unusable): acquire a new one now
	}
	o := m.startCall(ctx, OpAcquire, source, -1, deadline, subject{yields: true}, func(c context.Context) (Lease, error) {
		return m.s.Acquire(c, m.o.LeaseDuration)
	})
	if o.err != nil {
		m.endCall(ctx, OpAcquire, source, -1, o, o.err, time.Time{})
		return grant{}, o.err
	}
	return m.usable(ctx, grant{OpAcquire, source, o})
}

// usable checks a granted lease before the factories may use it; if they
// may not, it emits the grant's end event with the reason and releases the
// lease.
func (m *Manager) usable(ctx context.Context, g grant) (grant, error) {
	var err error
	switch l := g.o.l; {
	case l.MachineID < 0 || l.MachineID > maxMachineID:
		err = fmt.Errorf("%w: strategy %s granted machine ID %d, outside 0..%d", ErrConfig, m.name, l.MachineID, maxMachineID)
	case !m.tm.legal(l.TTL):
		err = fmt.Errorf("%w: strategy %s granted %v for machine ID %d, below %v", ErrIllegalTTL, m.name, l.TTL, l.MachineID, m.tm.minTTL)
	case !time.Now().Before(g.o.sent.Add(m.tm.safe(l.TTL))):
		err = fmt.Errorf("%w: acquiring machine ID %d took %v, past its safe window", ErrTimeout, l.MachineID, g.o.took)
	case ctx.Err() != nil:
		err = ErrClosed
	}
	if err != nil {
		m.endCall(ctx, g.op, g.source, g.o.l.MachineID, g.o, err, time.Time{})
		source := g.source
		if ctx.Err() != nil {
			source = SourceShutdown
		}
		m.release(g.o.l, source)
	}
	return g, err
}

// install activates the factories with a fresh lease and makes it current,
// then emits the grant's end event: a consumer that acts on a successful
// acquire or reclaim end event finds the factories running on the lease
// and MachineID reporting it.
func (m *Manager) install(g grant) error {
	l, o := g.o.l, g.o
	notBefore := handoffNotBefore(l, m.o.HandoffSkew, m.tm.margin)
	if g.op == OpReclaim {
		notBefore = reclaimNotBefore(l, time.Now(), m.o.HandoffSkew)
	}
	validUntil := o.sent.Add(m.tm.safe(l.TTL))
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		m.endCall(m.runCtx, g.op, g.source, l.MachineID, o, ErrClosed, time.Time{})
		m.release(l, SourceShutdown)
		return ErrClosed
	}
	if err := m.fs.activate(l.MachineID, notBefore, validUntil); err != nil {
		m.mu.Unlock()
		err = fmt.Errorf("%w: machine ID %d: %w", ErrConfig, l.MachineID, err)
		m.endCall(m.runCtx, g.op, g.source, l.MachineID, o, err, time.Time{})
		m.release(l, g.source)
		return err
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
	m.endCall(m.runCtx, g.op, g.source, l.MachineID, o, nil, validUntil)
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
		m.o.Logger.Info("lease hand-off guard: the factories' first timestamp waits for the previous holder's last possible one",
			"strategy", m.name, "machine_id", l.MachineID, "wait", wait)
	}
}

// startCall emits the start event of op and runs it (see call).
func (m *Manager) startCall(ctx context.Context, op Op, source Source, id int, deadline time.Time, subj subject, fn func(context.Context) (Lease, error)) outcome {
	m.emit(Event{Kind: EventStart, Op: op, Source: source, MachineID: id})
	return m.call(ctx, deadline, subj, fn)
}

// endCall emits the end event of a call made with ctx: o is its outcome,
// err its failure (o.err, or why the lease it granted cannot be used),
// validUntil the deadline the factories got from it (zero: derived from
// the event, see validity). A call that failed because ctx ended (the
// manager is stopping) ends with Result "canceled", whatever the strategy
// made of the cancellation: our own shutdown is not a failure.
func (m *Manager) endCall(ctx context.Context, op Op, source Source, id int, o outcome, err error, validUntil time.Time) {
	e := Event{Kind: EventEnd, Op: op, Source: source, MachineID: id, Result: resultOf(err), Err: err, Duration: o.took, ValidUntil: validUntil}
	if o.err == nil && op != OpRelease {
		e.MachineID, e.GrantedTTL = o.l.MachineID, o.l.TTL
	}
	if err != nil && op != OpRelease && ctx.Err() != nil {
		e.Result = "canceled"
	}
	m.emit(e)
}

// strategyCall is call with start and end events.
func (m *Manager) strategyCall(ctx context.Context, op Op, source Source, id int, deadline time.Time, subj subject, fn func(context.Context) (Lease, error)) outcome {
	o := m.startCall(ctx, op, source, id, deadline, subj, fn)
	m.endCall(ctx, op, source, id, o, o.err, time.Time{})
	return o
}

// release gives l up, best effort, bounded by ReleaseTimeout (and by the
// context of Close, when shutting down on its behalf). An abandoned call
// still running on l releases it again once it returns (see orphan).
func (m *Manager) release(l Lease, source Source) error {
	m.gaveUp(l)
	parent := context.Background()
	if source == SourceShutdown {
		m.mu.Lock()
		if m.closeCtx != nil {
			parent = m.closeCtx
		}
		m.mu.Unlock()
	}
	o := m.strategyCall(parent, OpRelease, source, l.MachineID, time.Now().Add(m.o.ReleaseTimeout), subject{}, func(c context.Context) (Lease, error) {
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
