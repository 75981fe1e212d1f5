package lease

import (
	"context"
	"time"
)

// outcome is the result of one bounded strategy call.
type outcome struct {
	l    Lease
	err  error
	sent time.Time     // local monotonic time the request was sent
	took time.Duration // until the manager stopped waiting
	cut  bool          // the call failed after its context had ended
}

// subject says what a strategy call acts on, and so what must be cleaned
// up if the manager abandons it (stops waiting before it returns).
type subject struct {
	// yields: the call may grant a new lease (acquire). One it returns after
	// it was abandoned is released: the manager never uses it.
	yields bool
	// on is the lease the call acts on (renew, reclaim), nil for none. A
	// call abandoned with its outcome unknown may still apply afterwards
	// (an UPDATE that commits after its client stopped waiting) and extend
	// that lease; if the manager has given the lease up meanwhile, it is
	// released again once the call has returned (see Manager.orphan).
	on *Lease
}

// leaseKey identifies a lease across calls: machine ID and token.
type leaseKey struct {
	id    int
	token string
}

func keyOf(l Lease) leaseKey { return leaseKey{l.MachineID, l.Token} }

// abandoned tracks the abandoned calls still running on one lease. Guarded
// by Manager.mu.
type abandoned struct {
	running int  // abandoned calls on the lease that have not returned
	gaveUp  bool // the manager released the lease (or will never use it)
}

// call runs op with a context that ends at deadline (zero: no deadline) or
// with ctx. It returns when op returns or as soon as that context ends,
// whichever is first: a strategy that ignores its context cannot hold the
// manager past the deadline. An abandoned call keeps running in the
// background and is cleaned up after as subj says (see orphan).
func (m *Manager) call(ctx context.Context, deadline time.Time, subj subject, op func(context.Context) (Lease, error)) outcome {
	var (
		cctx   context.Context
		cancel context.CancelFunc
	)
	if deadline.IsZero() {
		cctx, cancel = context.WithCancel(ctx)
	} else {
		cctx, cancel = context.WithDeadline(ctx, deadline)
	}
	defer cancel()
	ch := make(chan outcome, 1)
	sent := time.Now()
	go func() {
		l, err := op(cctx)
		ch <- outcome{l: l, err: err}
	}()
	finish := func(o outcome) outcome {
		o.sent, o.took = sent, time.Since(sent)
		o.cut = o.err != nil && cctx.Err() != nil
		return o
	}
	select {
	case o := <-ch:
		return finish(o)
	case <-cctx.Done():
	}
	select {
	case o := <-ch: // finished at the same moment: use it
		return finish(o)
	default:
	}
	if subj.yields || subj.on != nil {
		if subj.on != nil {
			// Registered before call returns, so before the manager can
			// give the lease up: orphan then sees that it did.
			k := keyOf(*subj.on)
			m.mu.Lock()
			if m.abandoned == nil {
				m.abandoned = make(map[leaseKey]*abandoned)
			}
			a := m.abandoned[k]
			if a == nil {
				a = &abandoned{}
				m.abandoned[k] = a
			}
			a.running++
			m.mu.Unlock()
		}
		m.orphans.Add(1)
		go m.orphan(ch, subj)
	}
	err := ErrTimeout
	if ctx.Err() != nil {
		err = ErrClosed
	}
	return outcome{err: err, sent: sent, took: time.Since(sent), cut: true}
}

// orphan waits for an abandoned call, then cleans up after it:
//   - a lease an abandoned acquire yields after all is released, so that
//     it does not hold a machine ID nobody uses;
//   - the lease an abandoned renew or reclaim acted on is released again
//     if the manager gave it up (released it) while the call was running,
//     whatever the call returned: a strategy may report such a call as
//     failed (context canceled) although its write was applied after the
//     manager's release, extending the lease for a whole duration. The
//     second release comes after the call has returned, so after anything
//     it did; it matches only our own token, so it is harmless when the
//     call did nothing. If the manager has not given the lease up, it has
//     not released it yet either, and its own release will come after the
//     call returned.
//
// Close waits for orphans (bounded by ReleaseTimeout).
func (m *Manager) orphan(ch <-chan outcome, subj subject) {
	defer m.orphans.Done()
	o := <-ch
	if subj.on != nil {
		k := keyOf(*subj.on)
		m.mu.Lock()
		a := m.abandoned[k]
		a.running--
		again := a.gaveUp
		if a.running == 0 {
			delete(m.abandoned, k)
		}
		m.mu.Unlock()
		if again {
			err := m.releaseDetached(*subj.on)
			m.logDetached(err, "lease released again after an abandoned call returned", *subj.on, o.err)
			return
		}
	}
	if subj.yields && o.err == nil {
		err := m.releaseDetached(o.l)
		m.logDetached(err, "lease released after an abandoned call", o.l, nil)
	}
}

// releaseDetached releases l outside the manager's goroutine (no events:
// those come from the manager's goroutine only), bounded by ReleaseTimeout.
func (m *Manager) releaseDetached(l Lease) error {
	ctx, cancel := context.WithTimeout(context.Background(), m.o.ReleaseTimeout)
	defer cancel()
	return m.s.Release(ctx, l)
}

func (m *Manager) logDetached(err error, msg string, l Lease, callErr error) {
	args := []any{"strategy", m.name, "machine_id", l.MachineID, "result", resultOf(err)}
	if callErr != nil {
		args = append(args, "call_result", resultOf(callErr))
	}
	if err != nil {
		m.o.Logger.Warn(msg, append(args, "reason", err.Error())...)
		return
	}
	m.o.Logger.Info(msg, args...)
}

// gaveUp records that the manager gives l up (it is about to release it,
// or will never use it): an abandoned call still running on l releases it
// again once it returns (see orphan).
func (m *Manager) gaveUp(l Lease) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if a := m.abandoned[keyOf(l)]; a != nil {
		a.gaveUp = true
	}
}
