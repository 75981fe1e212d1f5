// Package lease keeps nonce factories generating only while their process
// provably owns its machine ID (0..511), by holding the ID as a lease from
// a coordinator the application already runs (its SQL database, Redis,
// etcd) or taking it from the platform (a StatefulSet ordinal, a fixed
// host list). When ownership is in doubt, generation stops: availability
// is traded for uniqueness.
//
//	m, err := lease.Start(ctx, strategy, lease.Options{Factories: []lease.Factory{f}})
//	if err != nil { ... }          // no lease within AcquireTimeout (ErrTimeout) or ErrConfig
//	defer m.Close(context.Background())
//
// # The manager, in the order it runs (manager.go)
//
// Start validates the options, opens the state file if one is set, and
// acquires (acquire.go): it reclaims the lease the state file records, if
// this host and boot wrote it, else asks the [Strategy] for a free machine
// ID, retrying with backoff within AcquireTimeout. A granted lease is
// checked (machine ID in range, TTL legal, still inside its safe window),
// then installed: the factories are activated with its machine ID, a
// first timestamp after anything a previous holder of the ID could have
// emitted (the hand-off guard, timing.go), and the end of the safe window
// as their own deadline. The phase is then holding; OnAcquired hears of it.
//
// A goroutine then runs the loop (run): hold renews on schedule; a renewal
// that fails transiently is retried with backoff while the safe window
// lasts, the factories still generating; a successful renewal moves their
// deadline. The lease is lost when the coordinator says so ([ErrLost]),
// the safe window runs out ([ErrExpired]), a renewal is still unanswered
// at its end ([ErrTimeout]), the granted TTL is too short
// ([ErrIllegalTTL]), or the application calls [Manager.LeaseLost]
// ([ErrExternal]). Then drop runs the loss path: the factories are
// disabled first (LeaseLost and Close do it before they return), the lost
// event and OnLost follow, and a lease the coordinator may still count as
// ours is released. A dynamic strategy's manager acquires again (phase
// lost until a new lease is installed); a deterministic strategy's loss is
// final unless Options.ReacquireDeterministic is set.
//
// Close ends the loop (Start's context bounds the start only): the factories are
// disabled, the lease released, the state file cleared (phase closed).
//
// One goroutine owns the lease and its schedule; the public methods read
// the phase, machine ID and reason under a mutex, and a loss reaches the
// loop one way: the end of the current lease's context.
//
// # Timing
//
// Everything is measured on the local monotonic clock from when a request
// was sent, not when its reply arrived. With a granted TTL, the lease is
// trusted for safe = TTL - 10s (SafetyMargin); the next renewal starts
// min(RenewInterval, safe) - 10s after the previous request; a TTL below
// 30s (MinLeaseDuration) is a loss. Failed calls back off
// min(base*2^(attempt-1) + jitter in [1, base], limit, 24h): base 100ms and
// limit the time left of AcquireTimeout in Start, base 1s and limit the
// renew interval afterwards.
//
// # Safety
//
// Every strategy call is bounded by a deadline (the end of the safe window
// for renewals) and abandoned when it passes, even if the strategy ignores
// its context. The manager is the one owner of such calls: once one
// returns, the leases it may have left behind are released (call.go), and
// since a grant draws a fresh token and a reclaim replaces it, those
// releases never touch a lease a later holder has. The factories also get
// the end of the safe window as their own deadline, so they stop on time
// even if the manager's goroutine is stuck, and after a process suspension
// they generate nothing until a renewal re-validates the lease.
//
// A new holder of a machine ID starts its timestamps after the last one
// the previous holder could have emitted, whether that holder's lease
// expired or was released, for clocks within Options.HandoffSkew of each
// other: from the previous expiry the coordinator reports (SQL), from the
// coordinator's clock and the time it keeps a released ID taken (Redis),
// or from the local clock and that hold (etcd). See handoffNotBefore.
// Strategies with a fixed ID (env, host list) have no hand-off: the
// platform must never run two processes with one ID, unless the ID is also
// held in a coordinator (lease/guardlease), whose lease gets the guard.
//
// Crash loops do not drain the pool: with Options.StateFile a restarted
// process takes back its own unexpired lease through a strategy that
// implements [Reclaimer], and a lease the manager gives up is released.
//
// # Observability
//
// Each acquire, reclaim, renew and release logs start and end records
// through Options.Logger (log/slog) and hands an [Event] to Options.Events;
// so do retries and losses. Nonce generation is never instrumented.
// lease/leasenotice turns events into etcd3-style notices; lease/otellease
// into OpenTelemetry metrics.
//
// Strategies are checked with the conformance suite in
// [github.com/once-go/once/lease/leasetest], which also offers an in-memory
// coordinator for tests. Ready strategies: lease/envlease (environment
// variable), lease/hostlease (host list), lease/sqllease, lease/redislease
// and lease/etcdlease.
package lease
