package redislease_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/leasetest"
	"github.com/once-go/once/lease/redislease"
)

// harness describes one server and mode to leasetest: each namespace is a
// fresh NAME (deleted afterwards), every contender its own strategy on one
// shared client, and Broken a strategy on a dead port.
func harness(tg target) leasetest.Harness {
	return leasetest.Harness{
		New: func(t *testing.T) func() driver.Strategy {
			c := client(t, tg.srv)
			name := namespace(t, c)
			return func() driver.Strategy {
				return strategy(t, c, tg.mode, name, false)
			}
		},
		Range: func(t *testing.T, r driver.IDRange) func() (driver.Strategy, error) {
			c := client(t, tg.srv)
			name := namespace(t, c)
			return func() (driver.Strategy, error) {
				return redislease.New(c, redislease.Options{Mode: tg.mode, Name: name, MachineIDs: &r})
			}
		},
		Broken: func(t *testing.T) driver.Strategy {
			c := redis.NewClient(&redis.Options{Addr: testenv.DeadAddr(t), MaxRetries: -1})
			t.Cleanup(func() { c.Close() })
			return strategy(t, c, tg.mode, "once_leases", false)
		},
	}
}

func TestLeasetest(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		leasetest.Run(t, harness(tg))
	})
}
