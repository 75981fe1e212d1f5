package redislease

import (
	"context"
	"fmt"

	"github.com/once-go/once/lease/driver"
)

// Hash mode layout (exactly the Elixir library's): one hash NAME; a lease
// (id, token) is two fields written together with one TTL:
//
//	"<id>"                -> token
//	"token.<id>.<token>"  -> "<id>"
//
// acquire (scripts/hash_acquire.lua): refuse if a key {NAME}:<id> exists;
// if "<id>" is free,
//
//	HSETEX NAME PX ttl FIELDS 2 <id> <token> token.<id>.<token> <id>
//
// renew (scripts/hash_renew.lua): while "<id>" holds the token and the
// field "token.<id>.<token>" exists, the same HSETEX
//
// reclaim (scripts/hash_reclaim.lua): while "<id>" holds the old token and
// its token field exists, HSETEX PX ttl of "<id>" -> new token and
// "token.<id>.<new>", and HDEL of "token.<id>.<old>"
//
// release (scripts/hash_release.lua): while both fields exist and hold our
// token, the same HSETEX with PX hold, or HDEL of both when the hold is 0
//
// The field "token.<id>.<token>" exists only while that very lease does
// (nobody else knows the token, and it carries the same expiry as "<id>"),
// so finding it proves ownership: after an expiry and a takeover, or a
// reclaim, "<id>" exists again but our token field does not, and the
// scripts leave the new holder alone. The Elixir library writes the same
// fields with HSETEX FNX (claim) and FXX (renew, release); the scripts
// check the fields themselves and never send FNX or FXX, because Redis 8
// logs an HSETEX to its append-only file and replicas with the absolute
// expiry (PXAT), and a conditional HSETEX replayed after the expiry it
// conditions on has passed sets nothing: a restart would lose every lease
// whose first claim is older than its TTL. Release is the renewal with the
// TTL Options.ReleaseHold: both fields stay, with our token, for the hold,
// so the ID stays taken (an Elixir node sees it held that much longer) and
// then expires like any lease. A hold of 0 deletes both fields at once,
// which is what the Elixir library does on release.

func (s *Strategy) hashRelease(ctx context.Context, l driver.Lease) error {
	// Reply 0 means the lease was no longer ours: nothing to do.
	if err := hashReleaseScript.Run(ctx, s.c, s.keys[:1], l.MachineID, l.Token, s.holdMS).Err(); err != nil {
		return s.classify(ctx, fmt.Sprintf("release of ID %d (script)", l.MachineID), err, false)
	}
	return nil
}
