package lease

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/once-go/once/lease/driver"
)

// outcome is the result of one bounded strategy call.
type outcome struct {
	l    driver.Lease
	err  error
	sent time.Time     // local monotonic time the request was sent
	took time.Duration // until the manager stopped waiting
	// cut: the call failed after its context had ended (whether it
	// returned or was abandoned).
	cut bool
	// abandoned: the manager stopped waiting before the call returned;
	// the clean-up after it is the abandoned call's own (see call).
	abandoned bool
}

// call emits the start event of op on machine ID id (-1: none yet), then
// runs fn with a context that ends
// at deadline (zero: no deadline) or with ctx. It returns when fn returns
// or as soon as that context ends, whichever is first: a strategy that
// ignores its context cannot hold the manager past the deadline.
//
// The manager is the one owner of calls that outlive their context. An
// abandoned call keeps running; once it returns, every lease it may have
// left behind is released: the lease it acted on (on: the lease renewed or
// reclaimed) and any lease it reports (a grant, or a claim whose outcome
// is unknown). The manager never uses them: it gave on up when it stopped
// waiting for the call (a renewal abandoned at the end of the safe window
// is a loss; a reclaim or acquire abandoned fails its attempt), and a
// late grant was never installed. A late write may still have extended
// on after the manager's own release (an UPDATE that commits after its
// client stopped waiting), which is why on is released again after the
// call has returned. These releases cannot touch a lease that a later
// holder has: a later holder of the same machine ID has another token,
// since a grant draws a fresh token and a reclaim replaces it (see
// [Reclaimer]). Close waits for them, up to ReleaseTimeout.
func (m *Manager) call(ctx context.Context, op Op, src origin, id int, deadline time.Time, on *driver.Lease, fn func(context.Context) (driver.Lease, error)) outcome {
	m.emit(record{Event: Event{Kind: EventStart, Op: op, MachineID: id}, source: src})
	cctx, cancel := withDeadline(ctx, deadline)
	defer cancel()
	ch := make(chan outcome, 1)
	sent := time.Now()
	go func() {
		l, err := fn(cctx)
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
	case o := <-ch: // returned at the same moment: use it
		return finish(o)
	default:
	}
	if op != OpRelease { // a release leaves nothing behind
		m.calls.Add(1)
		go m.cleanUpAfter(ch, on)
	}
	err := ErrTimeout
	if ctx.Err() != nil {
		err = ErrClosed
	}
	return outcome{err: err, sent: sent, took: time.Since(sent), cut: true, abandoned: true}
}

// withDeadline is context.WithDeadline, or context.WithCancel for a zero
// deadline.
func withDeadline(ctx context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
	if deadline.IsZero() {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, deadline)
}

// cleanUpAfter waits for an abandoned call and releases what it may have
// left behind (see call). It runs outside the manager's goroutine, so it
// logs but emits no events.
func (m *Manager) cleanUpAfter(ch <-chan outcome, on *driver.Lease) {
	defer m.calls.Done()
	o := <-ch
	if on != nil {
		m.releaseDetached(*on, "lease released again after a call that outlived its deadline returned")
	}
	if o.l.Token != "" && (on == nil || o.l.Token != on.Token) {
		m.releaseDetached(o.l, "lease left by a call that outlived its deadline released")
	}
}

// releaseDetached releases l, bounded by ReleaseTimeout, and logs it.
func (m *Manager) releaseDetached(l driver.Lease, msg string) {
	ctx, cancel := context.WithTimeout(context.Background(), m.o.ReleaseTimeout)
	defer cancel()
	err := m.s.Release(ctx, l)
	args := []any{"strategy", m.name, "machine_id", l.MachineID, "result", resultOf(err)}
	if err != nil {
		m.o.Logger.Warn(msg, append(args, "reason", err.Error())...)
		return
	}
	m.o.Logger.Info(msg, args...)
}

// endCall emits the end event of a call made with ctx: o is its outcome,
// err its failure (o.err, or why the lease it granted cannot be used). A
// call that failed because ctx ended (the manager is stopping, or the
// lease was lost meanwhile) ends with result "canceled", whatever the
// strategy made of the cancellation: our own shutdown is not a failure.
// Its error then also matches ctx's cause.
func (m *Manager) endCall(ctx context.Context, op Op, src origin, id int, o outcome, err error) {
	r := record{Event: Event{Kind: EventEnd, Op: op, MachineID: id, Err: err, Duration: o.took}, source: src}
	if o.err == nil && op != OpRelease {
		r.MachineID, r.TTL = o.l.MachineID, o.l.TTL
	}
	if err != nil && op != OpRelease && ctx.Err() != nil {
		r.result = "canceled"
		if cause := context.Cause(ctx); !errors.Is(err, cause) {
			r.Err = fmt.Errorf("%w: %w", cause, err)
		}
	}
	m.emit(r)
}

// release gives l up, best effort, bounded by ReleaseTimeout, from the
// manager's goroutine; it returns the strategy's error.
func (m *Manager) release(l driver.Lease, src origin) error {
	o := m.call(context.Background(), OpRelease, src, l.MachineID, time.Now().Add(m.o.ReleaseTimeout), nil, func(ctx context.Context) (driver.Lease, error) {
		return driver.Lease{}, m.s.Release(ctx, l)
	})
	m.endCall(context.Background(), OpRelease, src, l.MachineID, o, o.err)
	return o.err
}
