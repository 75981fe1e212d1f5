package lease

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// maxMachineID is the highest machine ID of the nonce layout.
const maxMachineID = 511

// Manager holds one machine-ID lease for the life of a process and keeps
// its factories generating only while the lease is provably held. Create
// it with [Start]; stop it with [Manager.Close] or by ending Start's
// context.
//
// The manager renews on schedule, retries transient failures while the
// safe window lasts, and on loss disables the factories first, then calls
// Options.OnLost, then (dynamic strategies) acquires a new lease and
// re-activates the factories with it.
type Manager struct {
	s     Strategy
	name  string
	o     Options
	tm    timing
	fs    factories
	state *stateFile

	runCtx context.Context
	cancel context.CancelFunc
	done   chan struct{}
	lossCh chan struct{} // LeaseLost wakes the loop; capacity 1
	// orphans counts abandoned strategy calls still running, with the
	// clean-up after them.
	orphans sync.WaitGroup

	mu        sync.Mutex
	held      bool  // the factories run on a trusted lease
	machineID int   // of the held lease
	err       error // nil while held, else why not
	stopped   bool  // Close was called or the loop ended
	closeCtx  context.Context
	closeErr  error // of the release at shutdown
	// abandoned: the abandoned calls still running on each lease (see
	// call and orphan).
	abandoned map[leaseKey]*abandoned

	// Owned by the goroutine running the loop (Start's caller before).
	cur      Lease
	sent     time.Time // when the request that granted cur was sent
	deadline time.Time // end of cur's safe window (monotonic)
	holding  bool      // cur is ours at the coordinator and not released
	since    time.Time // when cur was granted
	streak   int       // failed acquisitions/short-lived leases in a row
	reclaim  *Lease    // from the state file, tried before acquiring
}

// Start acquires a machine-ID lease from s, activates opts.Factories with
// it and returns a running manager. It blocks until the first lease is
// held, or fails after opts.AcquireTimeout with an error matching
// [ErrTimeout] (and the last strategy error), leaving the factories
// untouched. [ErrConfig] from the options or the strategy fails at once.
//
// ctx bounds the manager's whole life, not only the start: when it ends the
// manager shuts down as by Close.
func Start(ctx context.Context, s Strategy, opts Options) (*Manager, error) {
	if s == nil {
		return nil, configError("nil Strategy")
	}
	o, tm, err := opts.validate()
	if err != nil {
		return nil, err
	}
	m := &Manager{
		s: s, name: s.Name(), o: o, tm: tm, fs: factories(o.Factories),
		done: make(chan struct{}), lossCh: make(chan struct{}, 1), machineID: -1,
	}
	if o.StateFile != "" {
		if _, ok := s.(Reclaimer); !ok {
			return nil, configError("StateFile needs a strategy that implements lease.Reclaimer; %s does not", m.name)
		}
		if m.state, err = openStateFile(o.StateFile); err != nil {
			return nil, err
		}
		if l, ok := m.state.load(m.name); ok {
			m.reclaim = &l
		}
	}
	m.runCtx, m.cancel = context.WithCancel(ctx)
	if err := m.acquire(SourceInitial); err != nil {
		if m.reclaim != nil {
			// A reclaim whose outcome is unknown: if its call is still
			// running, the lease is released once it returns (see orphan).
			m.gaveUp(*m.reclaim)
		}
		m.cancel()
		m.state.close()
		return nil, err
	}
	go m.run()
	return m, nil
}

// MachineID returns the machine ID of the lease held now, or -1 while none
// is (after a loss, before a new lease, and after shutdown).
func (m *Manager) MachineID() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.held {
		return -1
	}
	return m.machineID
}

// Done is closed when the manager stops: after Close, after Start's context
// ended, or when a lease is lost for good (a deterministic strategy without
// ReacquireDeterministic). Err then says why.
func (m *Manager) Done() <-chan struct{} { return m.done }

// Err returns nil while a lease is held; otherwise why not: the loss
// reason ([ErrLost], [ErrExpired], [ErrTimeout], [ErrExternal],
// [ErrIllegalTTL]) while re-acquiring or after a final loss, [ErrClosed]
// after shutdown.
func (m *Manager) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// LeaseLost tells the manager that the application has reason to believe
// the lease is lost (say, a coordinator-side alert). The factories are
// disabled before LeaseLost returns; the manager then runs its loss path
// (OnLost, events, release, re-acquisition) with a reason matching
// [ErrExternal]. While no lease is held the call does nothing: callbacks
// do not run again and the re-acquisition backoff is not reset.
func (m *Manager) LeaseLost(reason string) {
	m.mu.Lock()
	if !m.held || m.stopped {
		m.mu.Unlock()
		m.o.Logger.Debug("lease loss signal ignored: no lease held", "strategy", m.name, "reason", reason)
		return
	}
	m.loseLocked(fmt.Errorf("%w: %s", ErrExternal, reason))
	m.mu.Unlock()
	select {
	case m.lossCh <- struct{}{}:
	default:
	}
}

// Close stops the manager: disables the factories at once, cancels any
// strategy call in flight, releases the lease (bounded by ctx and
// Options.ReleaseTimeout), and waits for the manager's goroutine, then up to
// ReleaseTimeout more for strategy calls it abandoned and the clean-up
// after them: an acquire that completes during shutdown is released, not
// leaked; a renewal (or reclaim) abandoned in flight may still be applied
// after the release, whatever the strategy reports (an UPDATE that commits
// after its client stopped waiting), so once it has returned the lease is
// released again. Close thus returns within about twice ReleaseTimeout, or
// when ctx ends. It returns the release error, or ctx's error if ctx ended
// first. Calling it again waits again and returns the same result.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	if !m.stopped {
		m.stopped = true
		m.closeCtx = ctx
		m.loseLocked(ErrClosed)
	}
	m.mu.Unlock()
	m.cancel()
	select {
	case <-m.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	// Wait a little for abandoned calls, so that a lease one of them
	// yields late is released before the process exits.
	orphansDone := make(chan struct{})
	go func() { m.orphans.Wait(); close(orphansDone) }()
	t := time.NewTimer(m.o.ReleaseTimeout)
	defer t.Stop()
	select {
	case <-orphansDone:
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closeErr
}

// loseLocked stops trusting the lease: factories first, then the state.
// m.mu must be held.
func (m *Manager) loseLocked(reason error) {
	m.fs.disable()
	m.held = false
	m.err = reason
}
