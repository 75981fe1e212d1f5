package redislease

import (
	"context"
	"fmt"
	"strconv"

	"github.com/once-go/once/lease"
)

// Hash mode layout (exactly the Elixir library's): one hash NAME; a lease
// (id, token) is two fields written together with one TTL:
//
//	"<id>"                -> token
//	"token.<id>.<token>"  -> "<id>"
//
// acquire (scripts/hash_acquire.lua): refuse if a key {NAME}:<id> exists, then
//
//	HSETEX NAME FNX PX ttl FIELDS 2 <id> <token> token.<id>.<token> <id>
//
// renew (scripts/hash_renew.lua): while "<id>" holds the token,
//
//	HSETEX NAME FXX PX ttl FIELDS 2 <id> <token> token.<id>.<token> <id>
//
// reclaim (scripts/hash_reclaim.lua): while "<id>" holds the old token and
// its token field exists, HSETEX PX ttl of "<id>" -> new token and
// "token.<id>.<new>", and HDEL of "token.<id>.<old>"
//
// release: HSETEX NAME FXX PX hold FIELDS 2 <id> <token> token.<id>.<token> <id>
//
// FNX sets only when neither field exists; FXX only when both do. The field
// "token.<id>.<token>" exists only while that very lease does (nobody else
// knows the token, and it carries the same expiry as "<id>"), so FXX
// succeeding proves ownership: after an expiry and a takeover, or a
// reclaim, "<id>" exists again but our token field does not, and FXX
// leaves the new holder alone. Release is the renewal with the TTL
// Options.ReleaseHold: both fields stay, with our token, for the hold, so
// the ID stays taken (an Elixir node sees it held that much longer) and
// then expires like any lease. A hold of 0 sends PX 0, which expires both
// fields at once (Redis 8 and Valkey 9 delete them and reply 1), which is
// what the Elixir library does on release.

func hashFields(id int, token string) []any {
	sid := strconv.Itoa(id)
	return []any{"FIELDS", 2, sid, token, "token." + sid + "." + token, sid}
}

func (s *Strategy) hashRelease(ctx context.Context, l lease.Lease) error {
	args := append([]any{"HSETEX", s.opts.Name, "FXX", "PX", s.holdMS}, hashFields(l.MachineID, l.Token)...)
	// Reply 0 means the lease was no longer ours: nothing to do.
	if err := s.c.Do(ctx, args...).Err(); err != nil {
		return s.classify(ctx, fmt.Sprintf("release of ID %d (HSETEX FXX PX %d)", l.MachineID, s.holdMS), err, false)
	}
	return nil
}
