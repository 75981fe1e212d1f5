package soakwork

import "testing"

// TestReleaseHold: the Redis coordinators delete on release only when the
// runner says so; the default hold otherwise.
func TestReleaseHold(t *testing.T) {
	t.Setenv(ReleaseHoldVar, "")
	if h := releaseHold(); h != 0 {
		t.Errorf("unset: ReleaseHold %v, want 0 (the default hold)", h)
	}
	t.Setenv(ReleaseHoldVar, "delete")
	if h := releaseHold(); h >= 0 {
		t.Errorf("delete: ReleaseHold %v, want negative (delete at once)", h)
	}
}
