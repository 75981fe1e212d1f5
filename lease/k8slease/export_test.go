package k8slease

import "time"

// SetWallClock makes s read its wall clock (what it writes in the Lease)
// from now: a process whose clock is off.
func SetWallClock(s *Strategy, now func() time.Time) { s.wall = now }
