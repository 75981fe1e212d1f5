package driver

import "time"

// Lease is what a [Strategy] hands out: a machine ID and the proof that the
// caller owns it until the coordinator's TTL runs out.
//
// The manager treats Token as opaque; a strategy puts whatever it needs to
// renew and release in it (a random token, a row version, a key name).
type Lease struct {
	// MachineID is the leased machine ID, 0..511.
	MachineID int
	// Token proves ownership to the coordinator. Opaque to the manager.
	Token string
	// TTL is the lifetime the coordinator granted, counted from when the
	// request was sent (the manager measures it on its own monotonic clock).
	TTL time.Duration
	// PrevExpiry is the coordinator-clock expiry of the previous holder of
	// this machine ID, when the coordinator reports one (SQL: the row's old
	// expires_at). Zero when unknown or never held. The manager's hand-off
	// guard uses it so the new holder never emits a timestamp the previous
	// holder could have emitted.
	PrevExpiry time.Time
	// CoordinatorNow is the coordinator's clock when it granted or renewed
	// the lease, zero when unknown.
	CoordinatorNow time.Time
	// ReleaseHold is how long the coordinator keeps a machine ID taken
	// after its holder releases it (Strategy.Release), before anyone can
	// acquire it again; 0 when a release frees it at once. It describes
	// the strategy's configuration, not this lease: a strategy reports the
	// same value on every Lease it returns (Acquire, Renew, Reclaim), and
	// every holder sharing a namespace must release the same way. The
	// manager's hand-off guard uses it when the strategy reports
	// CoordinatorNow but no PrevExpiry (Redis): an ID found free was
	// either expired or released at least ReleaseHold earlier, so the new
	// holder's first timestamp need not wait that long again. Negative
	// counts as 0.
	ReleaseHold time.Duration
}
