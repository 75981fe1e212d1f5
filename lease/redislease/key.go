package redislease

import (
	"context"
	"fmt"

	"github.com/once-go/once/lease/driver"
)

// Key mode layout: one string key per machine ID, "{NAME}:<id>" = token,
// with a PX expiry. The hash tag {NAME} puts all 512 keys, and the key NAME
// itself, in one hash slot:
//
//	acquire (scripts/acquire.lua): refuse if NAME is a hash, then
//	         SET {NAME}:<candidate> token NX PX ttl
//	renew   (scripts/renew.lua):   PEXPIRE while GET = token
//	reclaim (scripts/reclaim.lua): SET new token PX ttl while GET = old token
//	release (scripts/release.lua): PEXPIRE hold (DEL for 0) while GET = token

// keyRelease shortens l's key to the release hold (deletes it when the
// hold is 0) if it still holds l's token.
func (s *Strategy) keyRelease(ctx context.Context, l driver.Lease) error {
	// Reply 0 means the lease was no longer ours: nothing to do.
	if err := releaseScript.Run(ctx, s.c, []string{s.idKeys[l.MachineID]}, l.Token, s.holdMS).Err(); err != nil {
		return s.classify(ctx, fmt.Sprintf("release of ID %d (script)", l.MachineID), err, false)
	}
	return nil
}
