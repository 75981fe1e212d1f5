package etcdlease

import (
	"context"
	"fmt"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// maxValueLen bounds a key's value: a token, '|', a key fingerprint and a
// holder of at most 200 bytes (leasekit.HolderToken, leasekit.WithKey,
// leasekit.CleanHolder).
const maxValueLen = leasekit.TokenLen + 1 + leasekit.KeyLen + 200

// releasedValue is the value of a released key while it is held for
// Options.ReleaseHold: no token, so no renewal, reclaim or release of
// the lease it belonged to matches it.
const releasedValue = "released"

// newToken returns the value of a new key: a random token and the holder,
// with the key fingerprint ctx carries before it (leasekit.HolderToken,
// leasekit.WithKey). The whole value proves ownership.
func (s *Strategy) newToken(ctx context.Context) string {
	return leasekit.HolderToken(leasekit.NewTokenString(), leasekit.WithKey(s.opts.Holder, driver.KeyFingerprint(ctx)))
}

// leaseToken is what Lease.Token carries: the etcd lease ID (16 hex
// digits), a dot, and the key's value (the token and the holder).
func leaseToken(id clientv3.LeaseID, token string) string {
	return fmt.Sprintf("%016x.%s", uint64(id), token)
}

// parseLease splits a lease into its etcd lease ID and token. A malformed
// lease is not ours: [driver.ErrLost].
func parseLease(l driver.Lease) (clientv3.LeaseID, string, error) {
	t := l.Token
	if !leasekit.ValidID(l.MachineID) || len(t) < 16+1+leasekit.TokenLen || len(t) > 16+1+maxValueLen || t[16] != '.' {
		return 0, "", leasekit.Errorf("etcdlease", driver.ErrLost, "malformed lease (machine ID %d, token of %d bytes)", l.MachineID, len(t))
	}
	id, err := strconv.ParseUint(t[:16], 16, 64)
	if err != nil || id == 0 || int64(id) < 0 {
		return 0, "", leasekit.Errorf("etcdlease", driver.ErrLost, "malformed lease ID in the token of machine ID %d", l.MachineID)
	}
	return clientv3.LeaseID(id), t[17:], nil
}

// ttlSeconds converts d to whole seconds, rounding up so the granted TTL
// is never below the requested one.
func ttlSeconds(d time.Duration) (int64, error) {
	if d <= 0 {
		return 0, leasekit.Errorf("etcdlease", driver.ErrConfig, "lease duration %v is not positive", d)
	}
	s := int64((d + time.Second - 1) / time.Second)
	if s > maxTTLSeconds {
		return 0, leasekit.Errorf("etcdlease", driver.ErrConfig, "lease duration %v is above etcd's maximum TTL", d)
	}
	return s, nil
}
