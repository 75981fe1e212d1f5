//go:build !linux

package lease

import "time"

// bootClock reads the time since boot; elsewhere than on Linux the state
// file has no boot ID to tie it to, and it reports false.
var bootClock = func() (time.Duration, bool) { return 0, false }
