package lease

import "time"

// Defaults of Options that the tests check against.
const (
	DefaultAcquireTimeout = defaultAcquireTimeout
	DefaultHandoffSkew    = defaultHandoffSkew
)

// ResultOf classifies an error as the manager's log records it
// ("result").
var ResultOf = resultOf

// SetBootClock replaces the boot clock the state file records, for a
// test; the returned function restores it.
func SetBootClock(f func() (time.Duration, bool)) (restore func()) {
	prev := bootClock
	bootClock = f
	return func() { bootClock = prev }
}
