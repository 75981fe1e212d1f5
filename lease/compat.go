package lease

import "github.com/once-go/once/lease/driver"

// The strategy contract lives in package driver; these names keep the
// tree compiling until call sites are rewritten.
type (
	Strategy          = driver.Strategy
	Lease             = driver.Lease
	Slot              = driver.Slot
	Reclaimer         = driver.Reclaimer
	Claimer           = driver.Claimer
	Lister            = driver.Lister
	DurationDefaulter = driver.DurationDefaulter
)

var (
	ErrLost      = driver.ErrLost
	ErrRetry     = driver.ErrRetry
	ErrExhausted = driver.ErrExhausted
	ErrConflict  = driver.ErrConflict
	ErrConfig    = driver.ErrConfig
)

const (
	DefaultLeaseDuration   = driver.DefaultLeaseDuration
	DefaultDBLeaseDuration = driver.DefaultDBLeaseDuration
	DefaultRenewInterval   = driver.DefaultRenewInterval
	DefaultReleaseTimeout  = driver.DefaultReleaseTimeout
	MinLeaseDuration       = driver.MinLeaseDuration
	SafetyMargin           = driver.SafetyMargin
)
