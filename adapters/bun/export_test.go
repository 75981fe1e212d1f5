package oncebun

import "testing"

// WithoutReturning makes upserts read keys back as on MySQL (no RETURNING)
// until the test ends.
func WithoutReturning(t testing.TB) {
	noReturning = true
	t.Cleanup(func() { noReturning = false })
}
