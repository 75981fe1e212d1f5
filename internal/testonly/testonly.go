// Package testonly holds hooks that tests inside this module may call and
// production code never does. Nothing outside this module can import it.
package testonly

// ShortLeases marks the *lease.Options it is given so that the manager
// built from them accepts lease durations and renew intervals below the
// production minimums (30 s and 10 s) and scales its fixed 10 s safety
// margins down to a tenth of the lease duration, so that fault tests with
// real TCP proxies and real processes finish in seconds. Package lease sets
// it when it is initialised; the mark lives in the options, not here.
var ShortLeases func(opts any)
