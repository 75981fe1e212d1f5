package leasetest

import (
	"strings"
	"testing"

	"github.com/once-go/once/lease/driver"
)

// checkKeyFingerprint checks that a [driver.Lister] that records holders
// also records the key fingerprint each acquisition's context carries
// ([driver.WithKeyFingerprint]): List reports it as Slot.Fingerprint, not
// inside Slot.Holder, and none for an acquisition whose context carries
// none. A strategy that records no holder is not checked.
func (s *suite) checkKeyFingerprint(t *testing.T) {
	newContender := s.h.New(t)
	a := newContender()
	if _, ok := a.(driver.Lister); !ok {
		t.Skipf("%s does not implement driver.Lister", a.Name())
	}
	const fp = "0a1b2c3d"
	var keyed granted
	var err error
	for range 200 {
		if keyed, err = callAcquire(t, driver.WithKeyFingerprint(t.Context(), fp), a, longTTL); err == nil || !transient(err) {
			break
		}
	}
	if err != nil {
		t.Fatalf("Acquire with a key fingerprint: %v", err)
	}
	plain := mustAcquire(t, newContender(), longTTL)
	slots := s.list(t, newContender())
	for _, sl := range slots {
		want := ""
		switch sl.MachineID {
		case keyed.MachineID:
			want = fp
		case plain.MachineID:
		default:
			continue
		}
		if sl.Holder == "" {
			t.Skipf("%s records no holder", a.Name())
		}
		if sl.Fingerprint != want || strings.Contains(sl.Holder, fp) {
			t.Errorf("machine ID %d is listed with key fingerprint %q and holder %q; want fingerprint %q, and a holder without it",
				sl.MachineID, sl.Fingerprint, sl.Holder, want)
		}
	}
}
