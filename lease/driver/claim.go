package driver

import (
	"context"
	"time"
)

// Claimer is an optional capability of a [Strategy]: leasing one chosen
// machine ID rather than any free one. A guard for a fixed machine ID
// (lease/guardlease) uses it to hold the ID an environment variable or
// host list designates as a lease in a coordinator, so that a second
// process configured with the same ID is refused.
//
// Claim leases machineID for d if it is free, under the same atomic
// conditions as Acquire, and returns a lease that Renew and Release take
// like one from Acquire. It returns [ErrConflict], naming the machine ID,
// when someone else holds it (or wins a race for it), [ErrConfig] for a
// machine ID outside 0..511 or a strategy that cannot work as configured,
// and [ErrRetry] when the outcome is unknown; like Acquire, it then also
// returns the claim it may have applied (MachineID and Token set), for the
// caller to release.
type Claimer interface {
	Claim(ctx context.Context, machineID int, d time.Duration) (Lease, error)
}
