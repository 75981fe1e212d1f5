package lease

import "time"

// SetBootClock replaces the boot clock the state file records, for a
// test; the returned function restores it.
func SetBootClock(f func() (time.Duration, bool)) (restore func()) {
	prev := bootClock
	bootClock = f
	return func() { bootClock = prev }
}
