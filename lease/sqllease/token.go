package sqllease

import (
	"encoding/hex"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// newToken returns a fresh random token as stored in the row and as
// Lease.Token carries it: 32 lowercase hex digits (printable, safe in logs
// and state files).
func newToken() (raw []byte, text string) {
	b := leasekit.NewToken()
	return b[:], hex.EncodeToString(b[:])
}

// decode checks that l could have come from this strategy and returns its
// raw token. A lease that could not have is not ours: ErrLost.
func decode(l driver.Lease) ([]byte, error) {
	if !leasekit.ValidID(l.MachineID) {
		return nil, leasekit.Errorf(pkg, driver.ErrLost, "machine ID %d outside 0..%d", l.MachineID, leasekit.IDs-1)
	}
	b, err := hex.DecodeString(l.Token)
	if err != nil || len(b) != leasekit.TokenBytes {
		return nil, leasekit.Errorf(pkg, driver.ErrLost, "machine ID %d: token is not %d hex-encoded bytes", l.MachineID, leasekit.TokenBytes)
	}
	return b, nil
}
