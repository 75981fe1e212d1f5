package leasekit

// keyMark starts the key fingerprint a holder records before its name
// (WithKey): "key=1a2b3c4d host/pid".
const keyMark = "key="

// KeyLen is how many bytes WithKey adds before a holder: "key=", the
// fingerprint and a space.
const KeyLen = len(keyMark) + FingerprintLen + 1

// FingerprintLen is the length of a key fingerprint (nonce.Fingerprint):
// 8 lowercase hex digits.
const FingerprintLen = 8

// ValidFingerprint reports whether fp is a key fingerprint: 8 lowercase
// hex digits.
func ValidFingerprint(fp string) bool {
	if len(fp) != FingerprintLen {
		return false
	}
	for i := range len(fp) {
		if c := fp[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// WithKey returns the holder string a strategy records: holder with the
// key fingerprint fp before it, "key=<fp> <holder>" ("key=<fp>" alone for
// an empty holder); holder unchanged when fp is not a valid fingerprint
// (no key). The fingerprint comes first so that a value cut to a
// column's size loses the holder's tail, not the fingerprint.
func WithKey(holder, fp string) string {
	if !ValidFingerprint(fp) {
		return holder
	}
	if holder == "" {
		return keyMark + fp
	}
	return keyMark + fp + " " + holder
}

// SplitKey undoes WithKey: it returns the holder and the key fingerprint
// recorded in v, fp "" when v records none (a holder without a key, an
// older version, or another implementation).
func SplitKey(v string) (holder, fp string) {
	n := len(keyMark) + FingerprintLen
	if len(v) < n || v[:len(keyMark)] != keyMark || !ValidFingerprint(v[len(keyMark):n]) {
		return v, ""
	}
	switch {
	case len(v) == n:
		return "", v[len(keyMark):n]
	case v[n] == ' ':
		return v[n+1:], v[len(keyMark):n]
	}
	return v, ""
}
