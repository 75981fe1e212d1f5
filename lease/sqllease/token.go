package sqllease

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/migrations"
)

// tokenLen is the size of the random token stored in the row.
const tokenLen = 16

// newToken returns 16 random bytes; Lease.Token carries them as 32
// lowercase hex digits (printable, safe in logs and state files).
func newToken() []byte {
	b := make([]byte, tokenLen)
	rand.Read(b) // never fails (crypto/rand panics on a broken source)
	return b
}

// decode checks that l could have come from this strategy and returns its
// raw token. A lease that could not have is not ours: ErrLost.
func decode(l lease.Lease) ([]byte, error) {
	if l.MachineID < 0 || l.MachineID >= migrations.Rows {
		return nil, fmt.Errorf("sqllease: %w: machine ID %d outside 0..%d", lease.ErrLost, l.MachineID, migrations.Rows-1)
	}
	b, err := hex.DecodeString(l.Token)
	if err != nil || len(b) != tokenLen {
		return nil, fmt.Errorf("sqllease: %w: machine ID %d: token is not %d hex-encoded bytes", lease.ErrLost, l.MachineID, tokenLen)
	}
	return b, nil
}
