package driver

import "errors"

// Sentinel errors that classify a strategy's failures, matched with
// [errors.Is]. A strategy wraps one of them with detail; messages start
// with "lease: ". An unreachable coordinator is [ErrRetry] on every call,
// never [ErrLost] or [ErrConfig].
var (
	// ErrLost: the coordinator positively says the lease is not ours.
	ErrLost = errors.New("lease: lost")
	// ErrRetry: transient failure with unknown outcome (timeout,
	// connection error, pool exhaustion): the operation may or may not
	// have been applied; try again.
	ErrRetry = errors.New("lease: transient failure")
	// ErrExhausted: all 512 machine IDs are held.
	ErrExhausted = errors.New("lease: no free machine ID")
	// ErrConflict: every free candidate was taken by a racing contender.
	ErrConflict = errors.New("lease: lost the race for every candidate")
	// ErrConfig: the strategy (or the manager) cannot work as configured:
	// missing table, unsupported server, bad options. Retrying will not
	// help.
	ErrConfig = errors.New("lease: invalid configuration")
)
