// Package testonly holds knobs that tests inside this module may turn and
// production code never does. Nothing outside this module can import it.
package testonly

import "sync/atomic"

// ShortLeases, when set, lets the lease manager accept lease durations and
// renew intervals below its production minimums (30 s and 10 s) and scales
// its fixed 10 s safety margins down to a tenth of the lease duration, so
// fault tests with real TCP proxies and real processes finish in seconds.
// Set it from TestMain or a test-helper process only.
var ShortLeases atomic.Bool
