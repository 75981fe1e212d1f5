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

// TestClaimAnswers: Claim of an ID that is held is ErrConflict also when
// no ID of Options.MachineIDs is free (the script's -1), and Claim on a
// NAME that holds the other mode's data is refused with ErrConfig (-2),
// also when that data appears after a successful check.
func TestClaimAnswers(t *testing.T) {
	c := client(t, testenv.Redis7)
	ctx := t.Context()
	one := &driver.IDRange{Min: 10, Max: 10}
	name := namespace(t, c)
	a := strategyOpts(t, c, redislease.Options{Mode: redislease.ModeKey, Name: name, MachineIDs: one})
	b := strategyOpts(t, c, redislease.Options{Mode: redislease.ModeKey, Name: name, MachineIDs: one})
	if l, err := a.Claim(ctx, 10, time.Minute); err != nil || l.MachineID != 10 {
		t.Fatalf("Claim of free ID 10: %+v, %v", l, err)
	}
	if l, err := b.Claim(ctx, 10, time.Minute); !errors.Is(err, driver.ErrConflict) || l != (driver.Lease{}) {
		t.Fatalf("Claim of held ID 10, none free: %+v, %v; want ErrConflict", l, err)
	}

	name2 := namespace(t, c)
	k := strategy(t, c, redislease.ModeKey, name2, false)
	if err := k.Check(ctx); err != nil {
		t.Fatal(err)
	}
	c.HSet(ctx, name2, "7", "someone")
	if l, err := k.Claim(ctx, 5, time.Minute); !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), "a hash-mode hash NAME exists") || l != (driver.Lease{}) {
		t.Fatalf("key-mode Claim with a hash at NAME: %+v, %v; want ErrConfig refusing the other mode", l, err)
	}
}
