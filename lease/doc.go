// Package lease keeps nonce factories generating only while their process
// provably owns its machine ID (0..511), by holding the ID as a lease from
// a coordinator the application already runs (its SQL database, Redis,
// etcd) or taking it from the platform (a StatefulSet ordinal, a fixed
// host list). When ownership is in doubt, generation stops: availability
// is traded for uniqueness.
//
// # Using it
//
// Make the factories with nonce.Config.AwaitLease, pick a [Strategy]
// (lease/sqllease on the application's database, in most cases), and
// start a [Manager]:
//
//	m, err := lease.Start(ctx, strategy, lease.Options{
//		Factories: []lease.Factory{ids},
//		StateFile: cmp.Or(os.Getenv("ONCE_STATE_FILE"), "once-lease.json"),
//	})
//	if err != nil { ... } // ErrTimeout: no machine ID within AcquireTimeout; ErrConfig: fix the setup
//	defer m.Close(context.Background())
//
// [Start] blocks until a machine ID is held and the factories generate
// with it. Its context bounds the start only (with Options.AcquireTimeout):
// once Start has returned, the manager renews the lease in the background
// until [Manager.Close], whatever becomes of that context. A lost lease is
// replaced on its own (the factories stop meanwhile); [Manager.Done] and
// [Manager.Err] report a loss that is final (a strategy with a fixed ID).
//
// A service shuts down in this order: stop accepting work, finish the
// work in flight (http.Server.Shutdown: its IDs still come), Close the
// manager (it disables the factories, then releases the machine ID), then
// close the coordinator's client (the database).
//
// Options.StateFile records the lease held, so that a process restarted
// in the same place (same host, and the same working directory or volume)
// takes its own unexpired lease back instead of leaving one machine ID
// taken per crash: crash loops do not drain the pool. Give each instance
// its own file, on storage that survives its restarts.
//
// Options.Events and Options.Logger report every step; with a strategy
// that implements [Lister], the manager also counts the free machine IDs
// and warns below Options.LowFreeIDs. lease/leasenotice turns events into
// etcd3-style notices, lease/otellease into OpenTelemetry metrics.
//
// Strategies are checked with the conformance suite in
// [github.com/once-go/once/lease/leasetest], which also offers an in-memory
// coordinator for tests. Ready strategies: lease/envlease (environment
// variable), lease/hostlease (host list), lease/sqllease, lease/redislease
// and lease/etcdlease.
//
// # The manager, in the order it runs (manager.go)
//
// Start validates the options, takes ownership of the factories (a
// factory belongs to one live manager), opens the state file if one is
// set, and acquires (acquire.go): it reclaims the lease the state file
// records, if this host and boot wrote it, else asks the [Strategy] for a
// free machine ID, retrying with backoff within AcquireTimeout. A granted
// lease is checked (machine ID in range, TTL legal, still inside its safe
// window), then installed: the factories are activated with its machine
// ID, a first timestamp after anything a previous holder of the ID could
// have emitted (the hand-off guard, timing.go), and the end of the safe
// window as their own deadline. The phase is then holding; OnAcquired
// hears of it, and the free IDs are counted (pool.go).
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
// Close ends the loop: the factories are disabled, the lease released,
// the state file cleared (phase closed), the factories' ownership given
// up.
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
// After a reclaim on the same host and boot, this boot's own clocks bound
// the previous incarnation, and the first ID waits for nothing unless the
// wall clock was stepped back (see reclaimNotBefore). Strategies with a
// fixed ID (env, host list) have no hand-off: the platform must never run
// two processes with one ID, unless the ID is also held in a coordinator
// (lease/guardlease), whose lease gets the guard.
//
// # Observability
//
// Each acquire, reclaim, renew and release logs start and end records
// through Options.Logger (log/slog) and hands an [Event] to Options.Events;
// so do retries, losses and free-ID counts ([EventPool]). Nonce generation
// is never instrumented.
package lease
