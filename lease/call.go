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

// call runs op with a context that ends at deadline (zero: no deadline) or
// with ctx. It returns when op returns or as soon as that context ends,
// whichever is first: a strategy that ignores its context cannot hold the
// manager past the deadline. An abandoned call keeps running in the
// background; if yields, a lease it returns after all is released (see
// orphan).
func (m *Manager) call(ctx context.Context, deadline time.Time, yields bool, op func(context.Context) (Lease, error)) outcome {
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
	if yields {
		m.orphans.Add(1)
		go m.orphan(ch)
	}
	err := ErrTimeout
	if ctx.Err() != nil {
		err = ErrClosed
	}
	return outcome{err: err, sent: sent, took: time.Since(sent), cut: true}
}

// orphan waits for an abandoned call and releases the lease it yields, if
// any, so that an acquire (or renewal) completing after the manager gave up
// on it does not hold a machine ID nobody uses.
func (m *Manager) orphan(ch <-chan outcome) {
	defer m.orphans.Done()
	o := <-ch
	if o.err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.o.ReleaseTimeout)
	defer cancel()
	err := m.s.Release(ctx, o.l)
	m.o.Logger.Info("lease released after an abandoned call", "strategy", m.name, "machine_id", o.l.MachineID, "result", resultOf(err))
}
