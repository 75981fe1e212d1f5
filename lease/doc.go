// Package lease keeps nonce factories generating only while their process
// provably owns its machine ID (0..511), by holding the ID as a lease from
// a coordinator the application already runs (its SQL database, Redis) or
// taking it from the platform (a StatefulSet ordinal, a fixed host list).
// When ownership is in doubt, generation stops: availability is traded for
// uniqueness.
//
// A [Strategy] hands out leases; [Start] runs a [Manager] that acquires one,
// activates the [Factory] values with its machine ID, renews on schedule and
// handles loss:
//
//	m, err := lease.Start(ctx, strategy, lease.Options{Factories: []lease.Factory{f}})
//	if err != nil { ... }          // no lease within AcquireTimeout (ErrTimeout) or ErrConfig
//	defer m.Close(context.Background())
//
// # Timing
//
// Everything is measured on the local monotonic clock from when a request
// was sent, not when its reply arrived. With a granted TTL, the lease is
// trusted for safe = TTL - 10s (SafetyMargin); the next renewal starts
// min(RenewInterval, safe) - 10s after the previous request; a TTL below
// 30s (MinLeaseDuration) is a loss ([ErrIllegalTTL]). Failed calls back off
// min(base*2^(attempt-1) + jitter in [1, base], limit, 24h): base 100ms and
// limit the time left of AcquireTimeout in Start, base 1s and limit the
// renew interval afterwards.
//
// # Safety
//
// Every strategy call is bounded by a deadline (the end of the safe window
// for renewals) and abandoned when it passes, even if the strategy ignores
// its context; a lease an abandoned call yields later is released. The
// factories also get the end of the safe window as their own deadline
// (validUntil), so they stop on time even if the manager's goroutine is
// stuck, and after a process suspension they generate nothing until a
// renewal re-validates the lease.
//
// On loss ([ErrLost]: the coordinator said so; [ErrExpired]: the safe
// window ran out while renewals failed; [ErrTimeout]: a renewal was still
// unanswered at its end; [ErrExternal]: [Manager.LeaseLost]; [ErrIllegalTTL])
// the manager disables the factories first, then calls Options.OnLost and
// emits a lost event, releases a lease the coordinator may still count as
// ours, and, for dynamic strategies, acquires a new lease with backoff and
// re-activates the factories with it. A deterministic strategy's loss is
// final unless Options.ReacquireDeterministic is set.
//
// A new holder of a machine ID starts its timestamps after the previous
// holder's expiry as the coordinator reports it (Lease.PrevExpiry) plus
// Options.HandoffSkew, so it never repeats a timestamp the previous holder
// could have emitted. A strategy that reports only the coordinator's clock
// (Lease.CoordinatorNow: Redis) cannot tell an expired ID from a released
// one; it reports how long a released ID stays taken (Lease.ReleaseHold:
// Redis keeps it 1s by default), and the new holder starts after
// CoordinatorNow + HandoffSkew - min(safety margin, ReleaseHold), which
// covers both (with ReleaseHold 0 every acquisition waits about
// HandoffSkew). One that reports neither (etcd) relies on the margin
// exceeding the clocks' combined skew, and a released ID re-used at once
// on the clocks agreeing. See the reasoning at handoffNotBefore in
// timing.go.
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
//
// Strategies are checked with the conformance suite in
// [github.com/once-go/once/lease/leasetest], which also offers an in-memory
// coordinator for tests. Ready strategies: lease/envlease (environment
// variable), lease/hostlease (host list), and the SQL and Redis strategies.
package lease
