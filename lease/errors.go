package lease

import "errors"

// Sentinel errors, matched with [errors.Is]. Strategies wrap them with
// detail; messages start with "lease: ".
var (
	// ErrLost: the coordinator says the lease is no longer ours.
	ErrLost = errors.New("lease: lost")
	// ErrRetry: transient failure with unknown outcome; try again.
	ErrRetry = errors.New("lease: transient failure")
	// ErrExhausted: all 512 machine IDs are held.
	ErrExhausted = errors.New("lease: no free machine ID")
	// ErrConflict: every free candidate was taken by a racing contender.
	ErrConflict = errors.New("lease: lost the race for every candidate")
	// ErrConfig: the strategy or manager is misconfigured; retrying will not help.
	ErrConfig = errors.New("lease: invalid configuration")
)
