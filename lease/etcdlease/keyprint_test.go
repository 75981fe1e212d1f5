package etcdlease_test

import (
	"strconv"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/once-go/once/internal/keysuite"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// TestKeyFingerprint runs the key fingerprint suite (see keysuite) on
// etcd. The foreign holding is a key holding a bare token on an etcd
// lease, as another implementation would write it.
func TestKeyFingerprint(t *testing.T) {
	keysuite.Run(t, []keysuite.Coordinator{{Name: "etcd", Setup: func(t *testing.T) (func() driver.Strategy, func(*testing.T) int) {
		c := client(t)
		prefix := namespace(t, c)
		newStrategy := func() driver.Strategy { return strategy(t, c, prefix, false) }
		foreign := func(t *testing.T) int {
			const id = 500
			g, err := c.Grant(ctxT(t), 3600)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Put(ctxT(t), prefix+strconv.Itoa(id), leasekit.NewTokenString(), clientv3.WithLease(g.ID)); err != nil {
				t.Fatal(err)
			}
			return id
		}
		return newStrategy, foreign
	}}})
}
