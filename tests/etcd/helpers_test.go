package etcd_test

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/once-go/once/internal/testenv"
)

// newClient connects to endpoints with test settings: short dial timeout,
// gRPC keep-alives every 10s (etcd refuses pings more often than every 5s by default), no
// client logging. It is closed when the test ends.
func newClient(t testing.TB, endpoints ...string) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{
		Endpoints:            endpoints,
		DialTimeout:          2 * time.Second,
		DialKeepAliveTime:    10 * time.Second,
		DialKeepAliveTimeout: 2 * time.Second,
		Logger:               zap.NewNop(),
	})
	if err != nil {
		t.Fatalf("etcd client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// client connects to the shared etcd (skipping or failing per
// ONCE_TEST_REQUIRE when it is down).
func client(t testing.TB) *clientv3.Client {
	t.Helper()
	return newClient(t, testenv.Etcd(t)...)
}

// namespace returns a fresh prefix on c and, when the test ends, revokes
// the etcd leases of the keys left under it and deletes them.
func namespace(t testing.TB, c *clientv3.Client) string {
	t.Helper()
	prefix := testenv.Unique(t, "once_leases") + "/"
	t.Cleanup(func() { wipe(c, prefix) })
	return prefix
}

// wipe revokes the etcd leases of the keys under prefix and deletes the
// keys.
func wipe(c *clientv3.Client, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := c.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return
	}
	seen := map[int64]bool{}
	for _, kv := range r.Kvs {
		if kv.Lease != 0 && !seen[kv.Lease] {
			seen[kv.Lease] = true
			c.Revoke(ctx, clientv3.LeaseID(kv.Lease))
		}
	}
	c.Delete(ctx, prefix, clientv3.WithPrefix())
}
