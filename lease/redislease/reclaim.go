package redislease

import (
	"context"
	"time"

	"github.com/once-go/once/lease"
)

var _ lease.Reclaimer = (*Strategy)(nil)

// Reclaim takes back a lease from its machine ID and token alone, as the
// manager's state file keeps them (lease.Options.StateFile), so that a
// process restarted in a crash loop keeps its ID instead of taking a new
// one each time. It is Renew, which needs nothing else: only the holder
// knows the token, so the renewal succeeds only while that very lease
// exists on the server. Redis keeps nothing of an expired lease, so a
// lease that expired before the restart is lease.ErrLost, and the manager
// acquires a new ID. A lease released within its release hold
// (Options.ReleaseHold) still exists, with its token, and is reclaimed
// (the manager keeps the state file only when a release failed); its
// previous holder is this process's previous incarnation, which the
// manager's reclaim guard covers.
func (s *Strategy) Reclaim(ctx context.Context, l lease.Lease, d time.Duration) (lease.Lease, error) {
	return s.Renew(ctx, l, d)
}
