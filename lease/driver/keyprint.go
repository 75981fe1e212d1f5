package driver

import "context"

// keyFingerprintKey is the context key of WithKeyFingerprint.
type keyFingerprintKey struct{}

// WithKeyFingerprint returns a context carrying fp, the fingerprint of the
// base key of the nonce factories a lease protects (nonce.Fingerprint). The
// lease manager passes it to every strategy call: a strategy that records
// a holder (Slot.Holder) records KeyFingerprint(ctx) beside it with each
// lease it takes, and its [Lister] reports it as Slot.Fingerprint. An empty
// fp records none.
func WithKeyFingerprint(ctx context.Context, fp string) context.Context {
	return context.WithValue(ctx, keyFingerprintKey{}, fp)
}

// KeyFingerprint returns the key fingerprint ctx carries (see
// [WithKeyFingerprint]), "" when none.
func KeyFingerprint(ctx context.Context) string {
	fp, _ := ctx.Value(keyFingerprintKey{}).(string)
	return fp
}
