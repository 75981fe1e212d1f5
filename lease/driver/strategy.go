package driver

import (
	"context"
	"time"
)

// Strategy hands out machine-ID leases. Every call takes a context that
// bounds it; a strategy must return promptly when the context ends, and
// starts nothing that outlives the call: no background goroutine, no
// clean-up of its own. The manager owns calls that outlive their context
// (a hung driver, a busy wait): it stops waiting at the deadline and, once
// such a call returns, releases whatever lease it may have left behind.
//
// Errors are classified with this package's sentinels:
//   - [ErrLost]: the coordinator positively says the lease is not ours.
//   - [ErrRetry]: the outcome is unknown (timeout, connection error, pool
//     exhaustion); the operation may or may not have been applied.
//   - [ErrExhausted]: every machine ID is held by someone else.
//   - [ErrConflict]: every free candidate was taken by a racing contender.
//   - [ErrConfig]: the strategy cannot work as configured (missing table,
//     unsupported server, bad options); retrying will not help.
//
// Run [github.com/once-go/once/lease/leasetest.Run] from a strategy's tests
// to check it against this contract.
type Strategy interface {
	// Name identifies the strategy in logs and events ("sql", "redis-hash").
	Name() string
	// Acquire claims a free machine ID for duration d. When it fails after
	// a claim may have been applied (the claim was sent, its reply was
	// lost), it returns that claim, MachineID and Token set, beside the
	// error: the manager releases it. A Lease with an empty Token claims
	// nothing.
	Acquire(ctx context.Context, d time.Duration) (Lease, error)
	// Renew extends l for duration d and returns the renewed lease, whose
	// MachineID equals l.MachineID. Replaying a renewal that was applied but
	// whose reply was lost succeeds.
	Renew(ctx context.Context, l Lease, d time.Duration) (Lease, error)
	// Release gives l up early. Best effort; releasing a lease that was
	// already taken over by someone else, or whose token was replaced
	// (see [Reclaimer]), is harmless and leaves theirs alone.
	Release(ctx context.Context, l Lease) error
	// Deterministic reports whether acquiring again yields the same machine
	// ID (environment and host-list strategies). Such strategies are not
	// re-acquired after a loss unless configured otherwise.
	Deterministic() bool
}

// DurationDefaulter is an optional capability of a [Strategy]: the lease
// duration the manager requests when its options leave the duration zero
// (lease.Options.LeaseDuration), in place of [DefaultLeaseDuration].
//
// A strategy whose coordinator is the application's own database returns
// [DefaultDBLeaseDuration] (1 h): an outage of that database stops the
// application's writes anyway, so IDs that outlive it by hours buy little,
// while a process that dies without releasing (SIGKILL, OOM kill, node
// loss) and is not restarted in the same place keeps its machine ID taken
// for the whole lease. The renewal interval stays 30 min, so a shorter
// lease costs no extra renewals; generation then rides out a coordinator
// outage of at least 30 min (the lease minus the renewal interval)
// instead of 7 h 30 min.
type DurationDefaulter interface {
	DefaultLeaseDuration() time.Duration
}
