package lease

import (
	"errors"

	"github.com/once-go/once/lease/driver"
)

// Errors of a [Manager], matched with [errors.Is]. [Start] fails with
// [ErrConfig] or [ErrTimeout] (wrapping the coordinator's last error);
// [Manager.Err] and lost events ([EventLost]) report why no lease is held:
// one of the loss reasons, or [ErrClosed]. Each loss reason is distinct, so
// callers can tell who decided the lease was gone.
var (
	// ErrLost: the coordinator says the lease is no longer ours. It is
	// driver.ErrLost, the error strategies report.
	ErrLost = driver.ErrLost
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
	// ErrClosed: the manager was shut down with [Manager.Close]. An
	// operation cut short by the shutdown ends with an error matching it.
	ErrClosed = errors.New("lease: manager closed")
	// ErrConfig: the options or the strategy cannot work as configured
	// (the message names the setting); retrying will not help. It is
	// driver.ErrConfig, the error strategies report.
	ErrConfig = driver.ErrConfig
)
