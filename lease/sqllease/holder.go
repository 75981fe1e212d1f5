package sqllease

import (
	"encoding/hex"
)

// holderPrefix is how many hex digits of the token the holder column
// records before the holder: "<16 hex digits> <holder>". A row's holder
// is reported only while the row's token still starts with them, so a
// holder written with an earlier token (the row then claimed by the
// Elixir library, or by a version of this package that records nothing)
// is never reported as the current one.
const holderPrefix = 16

// holderValue is what a claim of t with token writes to the holder
// column, cut to the column's size.
func (s *Strategy) holderValue(t *table, token []byte) string {
	v := hex.EncodeToString(token[:holderPrefix/2]) + " " + s.opts.Holder
	if t.holder > 0 && len(v) > t.holder {
		v = v[:t.holder]
	}
	return v
}

// holderOf returns the holder recorded in v if it was recorded with token.
func holderOf(v string, token []byte) string {
	if len(v) <= holderPrefix || v[holderPrefix] != ' ' || len(token) < holderPrefix/2 ||
		v[:holderPrefix] != hex.EncodeToString(token[:holderPrefix/2]) {
		return ""
	}
	return v[holderPrefix+1:]
}
