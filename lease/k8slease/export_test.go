package k8slease

import (
	"context"
	"time"
)

// SetWallClock makes s read its wall clock (what it writes in the Lease)
// from now: a process whose clock is off.
func SetWallClock(s *Strategy, now func() time.Time) { s.wall = now }

// Survey lists the pool once, from the API server's watch cache when
// cached is set, and reports how many IDs it found free.
func Survey(s *Strategy, ctx context.Context, cached bool) (int, error) {
	v, err := s.survey(ctx, cached)
	if err != nil {
		return 0, err
	}
	return len(v.free), nil
}

// SetBeforeTakeOver makes s call f(id) after it judged machine ID id's
// record released or expired and before it updates that record.
func SetBeforeTakeOver(s *Strategy, f func(id int)) { s.beforeTakeOver = f }
