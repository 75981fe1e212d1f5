package redislease_test

import (
	"testing"
	"time"

	"github.com/once-go/once/internal/keysuite"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
	"github.com/once-go/once/lease/redislease"
)

// TestKeyFingerprint runs the key fingerprint suite (see keysuite) on
// every server and mode. The foreign holding is the Elixir library's
// acquire, replayed, in hash mode; in key mode (which the Elixir library
// does not have) a key holding a bare token, as another implementation
// would write it.
func TestKeyFingerprint(t *testing.T) {
	var cs []keysuite.Coordinator
	for _, tg := range targets {
		cs = append(cs, keysuite.Coordinator{Name: tg.name, Setup: func(t *testing.T) (func() driver.Strategy, func(*testing.T) int) {
			c := client(t, tg.srv)
			name := namespace(t, c)
			newStrategy := func() driver.Strategy { return strategy(t, c, tg.mode, name, false) }
			foreign := func(t *testing.T) int {
				if tg.mode == redislease.ModeHash {
					id, _ := elixirAcquire(ctxT(t), t, c, name, int64(time.Hour/time.Millisecond))
					return id
				}
				const id = 500
				if ok, err := c.SetNX(ctxT(t), idKey(name, id), leasekit.NewTokenString(), time.Hour).Result(); err != nil || !ok {
					t.Fatalf("SET NX of machine ID %d: %v, %v", id, ok, err)
				}
				return id
			}
			return newStrategy, foreign
		}})
	}
	keysuite.Run(t, cs)
}
