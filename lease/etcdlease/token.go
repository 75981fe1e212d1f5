package etcdlease

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/once-go/once/lease"
)

// tokenLen is the length of a token: 16 random bytes, base64url without
// padding.
const tokenLen = 22

// newToken returns a fresh random token.
func newToken() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// leaseToken is what Lease.Token carries: the etcd lease ID (16 hex
// digits), a dot, and the token stored as the key's value.
func leaseToken(id clientv3.LeaseID, token string) string {
	return fmt.Sprintf("%016x.%s", uint64(id), token)
}

// parseLease splits a lease into its etcd lease ID and token. A malformed
// lease is not ours: [lease.ErrLost].
func parseLease(l lease.Lease) (clientv3.LeaseID, string, error) {
	t := l.Token
	if l.MachineID < 0 || l.MachineID >= Capacity || len(t) != 16+1+tokenLen || t[16] != '.' {
		return 0, "", fmt.Errorf("etcdlease: malformed lease (machine ID %d, token of %d bytes): %w", l.MachineID, len(t), lease.ErrLost)
	}
	id, err := strconv.ParseUint(t[:16], 16, 64)
	if err != nil || id == 0 || int64(id) < 0 {
		return 0, "", fmt.Errorf("etcdlease: malformed lease ID in the token of machine ID %d: %w", l.MachineID, lease.ErrLost)
	}
	return clientv3.LeaseID(id), t[17:], nil
}

// ttlSeconds converts d to whole seconds, rounding up so the granted TTL
// is never below the requested one.
func ttlSeconds(d time.Duration) (int64, error) {
	if d <= 0 {
		return 0, fmt.Errorf("etcdlease: lease duration %v is not positive: %w", d, lease.ErrConfig)
	}
	s := int64((d + time.Second - 1) / time.Second)
	if s > maxTTLSeconds {
		return 0, fmt.Errorf("etcdlease: lease duration %v is above etcd's maximum TTL: %w", d, lease.ErrConfig)
	}
	return s, nil
}

// parseID parses the decimal machine ID after the prefix: canonical digits
// only ("7", not "07" or "+7"), 0..511.
func parseID(s string) (int, bool) {
	if s == "" || len(s) > 3 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n < Capacity
}
