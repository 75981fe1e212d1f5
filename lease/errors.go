package lease

import "errors"

// Loss reasons, reported by [Manager.Err] and passed to Options.OnLost.
// Each is distinct, so callers can tell who decided the lease was gone.
var (
	// ErrExpired: the safe window ran out locally while renewals kept
	// failing (or the process was suspended past it).
	ErrExpired = errors.New("lease: expired locally")
	// ErrTimeout: a strategy call was still running when its deadline
	// passed (the safe window, or the acquire timeout in [Start]).
	ErrTimeout = errors.New("lease: timed out")
	// ErrExternal: the application declared the lease lost with
	// [Manager.LeaseLost].
	ErrExternal = errors.New("lease: declared lost by the application")
	// ErrIllegalTTL: the coordinator granted less than the minimum lease
	// duration (30 s).
	ErrIllegalTTL = errors.New("lease: granted TTL below the minimum")
	// ErrClosed: the manager was shut down with [Manager.Close].
	ErrClosed = errors.New("lease: manager closed")
)
