package main

import (
	"context"
	"sync"
	"time"

	"github.com/once-go/once/lease"
)

// releaseGuard wraps the strategy of "lease hold" so that the lease can be
// released once more after the manager has shut down.
//
// Why: when the manager closes during a renewal, it cancels the renewal and
// releases the lease at once. On SQL the canceled UPDATE can still commit
// after the release (SQLite commits an autocommit statement whose rows were
// closed early; a server may finish a statement whose client went away),
// extending the lease for a whole duration again; the strategy reports the
// renewal as failed (outcome unknown), so the manager's clean-up of
// abandoned calls, which releases only leases a late call reports, does not
// catch it. A second release after every call has settled ends such a
// lease; it is harmless otherwise, since a release matches only our own
// token.
type releaseGuard struct {
	lease.Strategy
	calls sync.WaitGroup
	mu    sync.Mutex
	held  []lease.Lease // every lease acquired, by machine ID and token
}

func (g *releaseGuard) Acquire(ctx context.Context, d time.Duration) (lease.Lease, error) {
	g.calls.Add(1)
	defer g.calls.Done()
	l, err := g.Strategy.Acquire(ctx, d)
	if err == nil {
		g.mu.Lock()
		g.held = append(g.held, lease.Lease{MachineID: l.MachineID, Token: l.Token})
		g.mu.Unlock()
	}
	return l, err
}

func (g *releaseGuard) Renew(ctx context.Context, l lease.Lease, d time.Duration) (lease.Lease, error) {
	g.calls.Add(1)
	defer g.calls.Done()
	return g.Strategy.Renew(ctx, l, d)
}

func (g *releaseGuard) Release(ctx context.Context, l lease.Lease) error {
	g.calls.Add(1)
	defer g.calls.Done()
	return g.Strategy.Release(ctx, l)
}

// releaseAgain waits up to wait for strategy calls still running, then
// releases every lease acquired through g, each bounded by timeout. It
// returns the first error.
func (g *releaseGuard) releaseAgain(wait, timeout time.Duration) error {
	settled := make(chan struct{})
	go func() { g.calls.Wait(); close(settled) }()
	t := time.NewTimer(wait)
	select {
	case <-settled:
	case <-t.C:
	}
	t.Stop()
	g.mu.Lock()
	held := g.held
	g.mu.Unlock()
	var first error
	for _, l := range held {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		if err := g.Strategy.Release(ctx, l); err != nil && first == nil {
			first = err
		}
		cancel()
	}
	return first
}
