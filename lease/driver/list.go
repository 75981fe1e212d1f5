package driver

import (
	"context"
	"time"
)

// Slot is one held machine ID as the coordinator records it.
type Slot struct {
	// MachineID is the held machine ID, 0..511.
	MachineID int
	// TTL is how long the holding has left by the coordinator's own
	// judgement (its clock, or for a coordinator without one the recorded
	// duration since the holder's last write); 0 when unknown.
	TTL time.Duration
	// Holder says who holds the ID, as the holder recorded it (a
	// strategy's Options.Holder, by default "host/pid"); "" when it
	// recorded nothing (a holder that predates the field, or another
	// implementation sharing the coordinator).
	Holder string
	// Fingerprint is the fingerprint of the base key the holder's nonce
	// factories use (nonce.Fingerprint: 8 hex digits), as the holder
	// recorded it beside Holder (see [WithKeyFingerprint]); "" when
	// unknown: it recorded none (no key, an older version, another
	// implementation such as the Elixir library). Two holders with
	// different fingerprints cannot read each other's masked IDs; an
	// unknown fingerprint is never a mismatch.
	Fingerprint string
	// Token is the holding's token in the form the strategy's Release
	// takes: Release(ctx, Lease{MachineID: s.MachineID, Token: s.Token})
	// frees exactly this holding and leaves a later one alone.
	Token string
}

// Lister is an optional capability of a [Strategy]: listing the machine IDs
// its coordinator holds now. The manager uses it to report how many IDs
// are free; the CLI to show who holds them.
type Lister interface {
	// List returns the held machine IDs in ascending order; an ID not
	// listed is free (expired or never held).
	List(ctx context.Context) ([]Slot, error)
}
