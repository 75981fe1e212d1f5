package driver

import (
	"context"
	"time"
)

// Reclaimer is an optional capability of a [Strategy]: taking back a lease
// this process held before it restarted, from the machine ID and token it
// persisted (see lease.Options.StateFile), so a crash loop does not drain the
// pool of machine IDs.
//
// Reclaim renews l for d given only l.MachineID and l.Token (the other
// fields are zero) and replaces the token in the same atomic step: the
// returned lease carries a new Token, and l's token no longer renews or
// releases anything. The manager reclaims a state file's lease only when
// the file's writer has stopped; should two processes still reclaim one
// record (two copies of the file of a holder that has exited), they cannot
// both keep the lease: the one that reclaims second is told [ErrLost]. And
// a call on l that outlived its context (a renewal abandoned by an
// earlier incarnation) can no longer touch the reclaimed lease.
//
// It returns [ErrLost] when the coordinator does not hold the machine ID
// for l's token (taken over, reclaimed by another copy, or unknown), and
// [ErrRetry] when the outcome is unknown; in that case it also returns the
// lease with the new token it may have written (MachineID and Token set),
// for the manager to release. Reclaiming a lease that expired but was not
// taken over may succeed: no one else held the ID meanwhile.
type Reclaimer interface {
	Reclaim(ctx context.Context, l Lease, d time.Duration) (Lease, error)
}
