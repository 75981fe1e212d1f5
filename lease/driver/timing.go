package driver

import "time"

// The lease manager's timing, which a strategy's leases must fit and which
// tools that configure a manager (the once CLI) show and check.
const (
	// DefaultLeaseDuration is the lease duration the manager requests
	// when neither its options nor the strategy ([DurationDefaulter])
	// choose one.
	DefaultLeaseDuration = 8 * time.Hour
	// DefaultDBLeaseDuration is the lease duration a strategy whose
	// coordinator is the application's own database advises through
	// [DurationDefaulter].
	DefaultDBLeaseDuration = time.Hour
	// DefaultRenewInterval is the longest time between renewals by
	// default (or half the lease duration, if that is less).
	DefaultRenewInterval = 30 * time.Minute
	// DefaultReleaseTimeout bounds a release by default.
	DefaultReleaseTimeout = 5 * time.Second
	// MinLeaseDuration is the shortest lease the manager asks for, and the
	// shortest TTL it accepts from a coordinator (shorter is an illegal
	// TTL, a loss).
	MinLeaseDuration = 30 * time.Second
	// SafetyMargin is subtracted from every granted TTL (the manager trusts
	// a lease until that long before the coordinator's expiry) and again
	// from the renewal time; a renew interval must be longer than it.
	SafetyMargin = 10 * time.Second
)
