package nonce

import "encoding/hex"

// fingerprintLabel is the PBKDF2 salt of key fingerprints (see DeriveKey):
// another implementation computes the same fingerprint as
// PBKDF2-HMAC-SHA256(baseKey, "fingerprint", 1000 iterations, 4 bytes).
const fingerprintLabel = "fingerprint"

// Fingerprint returns a short name of baseKey: 8 lowercase hex digits, the
// first 4 bytes PBKDF2-HMAC-SHA256 derives from it with the salt
// "fingerprint" (as DeriveKey derives cipher keys). Equal keys have equal
// fingerprints, so two processes can tell whether they share a key without
// showing it: lease holders record it, and logs and tools may print it.
// It reveals nothing useful about a random key; a guessable key stays
// guessable, fingerprint or not. Errors are those of DeriveKey (a base key
// shorter than 32 bytes).
func Fingerprint(baseKey []byte) (string, error) {
	b, err := DeriveKey(baseKey, fingerprintLabel, 4)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// Fingerprint returns the fingerprint of the factory's base key (see the
// function Fingerprint), or Config.Fingerprint when that was given, or ""
// when it was given neither.
func (f *Factory) Fingerprint() string { return f.fingerprint }

// isFingerprint reports whether s is spelled as Fingerprint spells one.
func isFingerprint(s string) bool {
	if len(s) != 8 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
