package etcdlease_test

import (
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/etcdlease"
	"github.com/once-go/once/lease/leasetest"
)

// TestLeasetest runs the conformance suite: each namespace is a fresh
// prefix (wiped afterwards), each contender its own client and strategy
// (as a separate process would hold), Broken a client of a dead port.
func TestLeasetest(t *testing.T) {
	eps := testenv.Etcd(t)
	leasetest.Run(t, leasetest.Harness{
		New: func(t *testing.T) func() driver.Strategy {
			prefix := namespace(t, newClient(t, eps...))
			return func() driver.Strategy {
				return strategy(t, newClient(t, eps...), prefix, false)
			}
		},
		Range: func(t *testing.T, r driver.IDRange) func() (driver.Strategy, error) {
			prefix := namespace(t, newClient(t, eps...))
			return func() (driver.Strategy, error) {
				return etcdlease.New(newClient(t, eps...), etcdlease.Options{Prefix: prefix, MachineIDs: &r})
			}
		},
		Broken: func(t *testing.T) driver.Strategy {
			s, err := etcdlease.New(newClient(t, testenv.DeadAddr(t)), etcdlease.Options{RequestTimeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		// etcd's minimum lease TTL (1.5 x its election timeout, rounded up
		// to whole seconds: 2s by default).
		ShortTTL: 2 * time.Second,
	})
}
