package redislease_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
)

// TestClaimOutsideRange: Claim refuses, with ErrConfig and without I/O, a
// machine ID outside 0..511 or outside Options.MachineIDs, and says which
// range it is outside.
func TestClaimOutsideRange(t *testing.T) {
	c := client(t, testenv.Redis7)
	name := namespace(t, c)
	s := strategy(t, c, redislease.ModeKey, name, false)
	narrow := strategyOpts(t, c, redislease.Options{Mode: redislease.ModeKey, Name: name, MachineIDs: &driver.IDRange{Min: 10, Max: 19}})
	for _, tc := range []struct {
		s    *redislease.Strategy
		id   int
		want string
	}{
		{s, -1, "claim: machine ID -1 outside 0..511"},
		{s, 512, "claim: machine ID 512 outside 0..511"},
		{narrow, 9, "claim: machine ID 9 outside Options.MachineIDs 10..19"},
		{narrow, 20, "claim: machine ID 20 outside Options.MachineIDs 10..19"},
	} {
		l, err := tc.s.Claim(t.Context(), tc.id, time.Minute)
		if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), tc.want) || l != (driver.Lease{}) {
			t.Errorf("Claim(%d): %+v, %v; want ErrConfig %q", tc.id, l, err, tc.want)
		}
	}
}
