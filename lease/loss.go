package lease

import (
	"fmt"
	"time"
)

// applyRenewal makes a successful renewal current: checks it, then moves the
// factories' deadline (or re-enables them if their own deadline had
// passed meanwhile: the same lease, so counters continue).
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
	if !m.held {
		defer m.mu.Unlock()
		return m.err
	}
	late := !time.Now().Before(m.deadline)
	if !late {
		m.fs.extend(validUntil)
		// The old deadline may have passed while Extend was on its way
		// (a preemption right here): a factory whose own deadline timer
		// fired in between stays disabled after Extend, which only moves
		// the deadline. Re-enable it then, as for a late renewal.
		late = !time.Now().Before(m.deadline)
	}
	if late {
		if err := m.fs.enable(validUntil); err != nil {
			reason := fmt.Errorf("%w: re-enabling factories after a late renewal of machine ID %d: %v", ErrExpired, l.MachineID, err)
			m.loseLocked(reason)
			m.mu.Unlock()
			return reason
		}
	}
	m.mu.Unlock()
	m.cur, m.sent, m.deadline = l, o.sent, validUntil
	m.streak = 0
	return nil
}

// afterLoss runs the loss path once the lease is no longer trusted:
// factories disabled (if LeaseLost has not done it already), then the lost
// event and OnLost, then a best-effort release of a lease the coordinator
// may still count as ours.
func (m *Manager) afterLoss(reason error) {
	m.mu.Lock()
	if m.held {
		m.loseLocked(reason)
	} else if m.err != nil {
		reason = m.err // the first reason recorded wins
	}
	m.mu.Unlock()
	remaining := max(time.Until(m.sent.Add(m.cur.TTL)), 0)
	m.emit(Event{Kind: EventLost, Source: SourceScheduled, MachineID: m.cur.MachineID, Err: reason, RemainingTTL: remaining})
	if m.o.OnLost != nil {
		m.o.OnLost(reason)
	}
	if m.holding {
		m.release(m.cur, SourceReacquire)
		m.holding = false
	}
	if err := m.state.clear(); err != nil {
		m.o.Logger.Warn("lease state file not cleared", "path", m.o.StateFile, "error", err)
	}
	if time.Since(m.since) < m.o.RenewInterval {
		m.streak++ // short-lived: back off before the next, as after a failure
	}
}

// finish ends the manager after a final loss (deterministic strategy).
func (m *Manager) finish() {
	m.mu.Lock()
	m.stopped = true
	m.mu.Unlock()
	m.state.close()
}

// shutdown disables the factories and releases the lease; on Close or the
// end of Start's context.
func (m *Manager) shutdown() {
	m.mu.Lock()
	if !m.stopped {
		m.stopped = true
		m.loseLocked(ErrClosed)
	}
	m.mu.Unlock()
	var err error
	if m.holding {
		err = m.release(m.cur, SourceShutdown)
		m.holding = false
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
