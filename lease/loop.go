package lease

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// run is the manager's goroutine: hold the lease, handle its loss,
// re-acquire, until the manager stops.
func (m *Manager) run() {
	defer close(m.done)
	for {
		reason := m.hold()
		if m.stopping() {
			m.shutdown()
			return
		}
		m.afterLoss(reason)
		if m.s.Deterministic() && !m.o.ReacquireDeterministic {
			m.finish()
			return
		}
		if m.acquire(SourceReacquire) != nil { // only fails when stopping
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

// pause waits for d; it returns early with the reason if the manager stops
// or the application declares the lease lost.
func (m *Manager) pause(d time.Duration) error {
	t := time.NewTimer(max(d, 0))
	defer t.Stop()
	for {
		select {
		case <-t.C:
			return nil
		case <-m.runCtx.Done():
			return ErrClosed
		case <-m.lossCh:
			if err := m.lossReason(); err != nil {
				return err
			}
		}
	}
}

// stopping reports whether Close was called or Start's context ended.
func (m *Manager) stopping() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stopped || m.runCtx.Err() != nil
}

// lossReason returns why the lease is not held, nil if it is.
func (m *Manager) lossReason() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.held {
		return nil
	}
	return m.err
}

// renew renews the current lease, retrying transient failures with backoff
// while its safe window lasts; every call is bounded by the end of the
// window. It returns nil once renewed, else the loss reason.
func (m *Manager) renew() error {
	for attempt := 1; ; attempt++ {
		if err := m.lossReason(); err != nil {
			return err
		}
		if !time.Now().Before(m.deadline) {
			return fmt.Errorf("%w: safe window of machine ID %d ended while renewals failed", ErrExpired, m.cur.MachineID)
		}
		cur := m.cur
		o := m.strategyCall(m.runCtx, OpRenew, SourceScheduled, cur.MachineID, m.deadline, subject{on: &cur}, func(c context.Context) (Lease, error) {
			return m.s.Renew(c, cur, m.o.LeaseDuration)
		})
		if m.runCtx.Err() != nil {
			return ErrClosed
		}
		if err := m.lossReason(); err != nil {
			return err
		}
		if o.err == nil {
			return m.applyRenewal(o)
		}
		switch {
		case errors.Is(o.err, ErrLost):
			m.holding = false // the coordinator says it is not ours: nothing to release
			return o.err
		case o.cut:
			return fmt.Errorf("%w: renewal of machine ID %d still unanswered at the end of its safe window (%v)", ErrTimeout, cur.MachineID, o.err)
		}
		delay := min(backoff(runBackoffBase, m.o.RenewInterval, attempt, jitter), time.Until(m.deadline))
		m.emit(Event{Kind: EventRetry, Op: OpRenew, Source: SourceScheduled, MachineID: cur.MachineID, Attempt: attempt, Delay: delay, Err: o.err})
		if err := m.pause(delay); err != nil {
			return err
		}
	}
}
