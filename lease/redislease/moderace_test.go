package redislease_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
)

// TestModesRace: a hash-mode and a key-mode process start on one fresh
// NAME at the same moment, many times. In no round may both win an ID:
// each claim checks for the other mode's data in the same atomic step.
func TestModesRace(t *testing.T) {
	forEach(t, hashTargets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		ctx := ctxT(t)
		const rounds = 300
		both, neither := 0, 0
		for i := range rounds {
			name := testenv.Unique(t, "once_race")
			h := strategy(t, c, redislease.ModeHash, name, false)
			k := strategy(t, c, redislease.ModeKey, name, false)
			if err := h.Check(ctx); err != nil {
				t.Fatal(err)
			}
			if err := k.Check(ctx); err != nil {
				t.Fatal(err)
			}
			var herr, kerr error
			var wg sync.WaitGroup
			start := make(chan struct{})
			wg.Go(func() { <-start; _, herr = h.Acquire(ctx, time.Minute) })
			wg.Go(func() { <-start; _, kerr = k.Acquire(ctx, time.Minute) })
			close(start)
			wg.Wait()
			cleanup(c, name)
			for _, err := range []error{herr, kerr} {
				if err != nil && !errors.Is(err, driver.ErrConfig) {
					t.Fatalf("round %d: %v", i, err)
				}
			}
			switch {
			case herr == nil && kerr == nil:
				both++
			case herr != nil && kerr != nil:
				neither++
			}
		}
		t.Logf("%d rounds: both modes won in %d, neither in %d", rounds, both, neither)
		if both > 0 {
			t.Fatalf("both modes won an ID on one NAME in %d of %d rounds", both, rounds)
		}
	})
}
