package etcd_test

import (
	"testing"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/etcdlease"
	"github.com/once-go/once/lease/guardlease"
	"github.com/once-go/once/tests/guardsuite"
)

// guardCoordinators: etcd as the coordinator of guardlease's tests (the
// root module runs them on SQL and Redis).
var guardCoordinators = []guardsuite.Coordinator{{Name: "etcd", Setup: etcdGuard}}

// etcdGuard prepares a fresh prefix on the shared etcd and returns a
// constructor of independent strategies on it.
func etcdGuard(t *testing.T) (func() guardlease.Coordinator, string) {
	c := client(t)
	prefix := testenv.Unique(t, "guard") + "/"
	t.Cleanup(func() { wipe(c, prefix) })
	return func() guardlease.Coordinator {
		s, err := etcdlease.New(c, etcdlease.Options{Prefix: prefix})
		if err != nil {
			t.Fatalf("etcdlease.New: %v", err)
		}
		return s
	}, "etcd prefix " + prefix
}

// TestGuardSameOrdinal: see guardsuite.SameOrdinal.
func TestGuardSameOrdinal(t *testing.T) { guardsuite.SameOrdinal(t, guardCoordinators) }

// TestGuardHandoffTimestamps: see guardsuite.HandoffTimestamps.
func TestGuardHandoffTimestamps(t *testing.T) {
	guardsuite.HandoffTimestamps(t, guardCoordinators)
}
