package lease

import (
	"context"
	"time"
)

// Reclaimer is an optional capability of a [Strategy]: taking back a lease
// this process held before it restarted, from the machine ID and token it
// persisted (see Options.StateFile), so a crash loop does not drain the
// pool of machine IDs.
//
// Reclaim renews l for d exactly as Renew would, given only l.MachineID and
// l.Token (the other fields are zero). It returns the renewed lease when
// the coordinator still holds the machine ID for that token, [ErrLost] when
// it does not (taken over, or unknown), and [ErrRetry] when the outcome is
// unknown. A strategy whose Renew needs nothing but the machine ID and
// token implements it as a call to Renew. Reclaiming a lease that expired
// but was not taken over may succeed: no one else held the ID meanwhile.
type Reclaimer interface {
	Reclaim(ctx context.Context, l Lease, d time.Duration) (Lease, error)
}
