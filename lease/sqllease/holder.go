package sqllease

import (
	"encoding/hex"

	"github.com/once-go/once/lease/internal/leasekit"
)

// holderPrefix is how many hex digits of the token the holder column
// records before the holder: "<16 hex digits> <holder>". A row's holder
// is reported only while the row's token still starts with them, so a
// holder written with an earlier token (the row then claimed by the
// Elixir library, or by a version of this package that records nothing)
// is never reported as the current one.
const holderPrefix = 16

// holderValue is what a claim of t with token writes to the holder
// column: the token prefix, then the holder with the key fingerprint fp
// before it (leasekit.WithKey), cut to the column's size; without the
// fingerprint when the column cannot hold it whole.
func (s *Strategy) holderValue(t *table, token []byte, fp string) string {
	prefix := hex.EncodeToString(token[:holderPrefix/2]) + " "
	v := prefix + leasekit.WithKey(s.opts.Holder, fp)
	if t.holder > 0 && len(prefix+leasekit.WithKey("", fp)) > t.holder {
		v = prefix + s.opts.Holder
	}
	if t.holder > 0 && len(v) > t.holder {
		v = v[:t.holder]
	}
	return v
}

// holderOf returns the holder and the key fingerprint recorded in v if
// they were recorded with token.
func holderOf(v string, token []byte) (holder, fp string) {
	if len(v) <= holderPrefix || v[holderPrefix] != ' ' || len(token) < holderPrefix/2 ||
		v[:holderPrefix] != hex.EncodeToString(token[:holderPrefix/2]) {
		return "", ""
	}
	return leasekit.SplitKey(v[holderPrefix+1:])
}
