package leasetest_test

import (
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/leasetest"
)

func TestMemoryConforms(t *testing.T) {
	leasetest.Run(t, leasetest.Harness{
		New: func(t *testing.T) func() driver.Strategy {
			m := leasetest.NewMemory(0)
			return func() driver.Strategy { return m }
		},
		Broken:   func(t *testing.T) driver.Strategy { return leasetest.Unreachable() },
		ShortTTL: 200 * time.Millisecond,
	})
}

// TestMemoryConformsWithReleaseHold: Memory keeping released IDs taken for
// a while, as the Redis strategy does, passes the suite too (which then
// checks that a released ID is not handed out before the hold ran out).
func TestMemoryConformsWithReleaseHold(t *testing.T) {
	leasetest.Run(t, leasetest.Harness{
		New: func(t *testing.T) func() driver.Strategy {
			m := leasetest.NewMemory(0)
			m.SetReleaseHold(150 * time.Millisecond)
			return func() driver.Strategy { return m }
		},
		ShortTTL: 200 * time.Millisecond,
	})
}
