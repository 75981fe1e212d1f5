package redislease_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
)

// serverBinary returns the server binary of srv that kv-servers.sh (Redis
// 8, Valkey 9) or the system (Redis 7) provides, or "" when absent.
func serverBinary(srv testenv.Server) string {
	kv := os.Getenv("KV_DIR")
	if kv == "" {
		kv = "/opt/once-kv"
	}
	switch srv {
	case testenv.Redis8:
		return kv + "/redis8.sh"
	case testenv.Valkey9:
		return kv + "/valkey9.sh"
	}
	bin, _ := exec.LookPath("redis-server")
	return bin
}

// privateServer starts a throwaway server of kind srv with extra
// arguments (skipping or failing per ONCE_TEST_REQUIRE when the binary is
// missing) and returns a client on it.
func privateServer(t *testing.T, srv testenv.Server, args ...string) *redis.Client {
	t.Helper()
	testenv.Short(t, "a private "+srv.String()+" server")
	bin := serverBinary(srv)
	if _, err := os.Stat(bin); bin == "" || err != nil {
		testenv.Unavailable(t, fmt.Sprintf("%v server binary not found (run /work/shared/tools/kv-servers.sh fetch)", srv))
	}
	addr := startServer(t, bin, args...)
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 4, ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	return c
}

// evictionPolicies are the maxmemory-policy values of Redis 7, Redis 8 and
// Valkey 9.
var evictionPolicies = []string{
	"noeviction",
	"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
	"allkeys-lru", "allkeys-lfu", "allkeys-random",
}

// TestEviction runs every server, mode and eviction policy under
// maxmemory: a strategy either refuses the server at Check and Acquire
// (ErrConfig naming maxmemory-policy), or holds 20 leases through 20,000
// ordinary cache writes (SET with a TTL, 1 KiB each, four times
// maxmemory) and every one of them survives.
func TestEviction(t *testing.T) {
	for _, tg := range targets {
		for _, policy := range evictionPolicies {
			t.Run(tg.name+"/"+policy, func(t *testing.T) {
				c := privateServer(t, tg.srv, "--maxmemory", "5mb", "--maxmemory-policy", policy)
				s := strategyOpts(t, c, redislease.Options{Mode: tg.mode, LowestFirst: true})
				ctx := ctxT(t)
				if err := s.Check(ctx); err != nil {
					if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), "maxmemory-policy "+policy) {
						t.Fatalf("Check = %v, want ErrConfig naming maxmemory-policy %s", err, policy)
					}
					if _, err := s.Acquire(ctx, time.Hour); !errors.Is(err, driver.ErrConfig) {
						t.Fatalf("Acquire on a refused server = %v, want ErrConfig", err)
					}
					t.Logf("refused: %v", err)
					return
				}
				const leases = 20
				var held []driver.Lease
				for range leases {
					l, err := s.Acquire(ctx, time.Hour)
					if err != nil {
						t.Fatalf("Acquire: %v", err)
					}
					held = append(held, l)
				}
				cacheWrites(t, c, 20000)
				survived := 0
				for _, l := range held {
					if value(t, c, tg.mode, redislease.DefaultName, l.MachineID) == l.Token {
						survived++
					}
				}
				if survived != leases {
					l, err := s.Acquire(ctx, time.Hour)
					t.Fatalf("accepted, but %d of %d held leases survived; next Acquire: ID %d (%v)", survived, leases, l.MachineID, err)
				}
				t.Logf("accepted; %d of %d leases survived", survived, leases)
			})
		}
	}
}

// cacheWrites makes n ordinary cache writes (1 KiB values with a one-hour
// TTL), ignoring out-of-memory replies.
func cacheWrites(t *testing.T, c *redis.Client, n int) {
	t.Helper()
	val := strings.Repeat("x", 1024)
	for i := 0; i < n; i += 500 {
		_, err := c.Pipelined(ctxT(t), func(p redis.Pipeliner) error {
			for j := i; j < min(i+500, n); j++ {
				p.Set(context.Background(), fmt.Sprintf("cache:%d", j), val, time.Hour)
			}
			return nil
		})
		if err != nil && !strings.HasPrefix(err.Error(), "OOM") {
			t.Fatalf("cache writes: %v", err)
		}
	}
}

// TestEvictionRecheck: a policy changed while a lease is held is noticed
// by the next renewal, which reports the lease lost (the manager stops
// generation at once) and names the setting.
func TestEvictionRecheck(t *testing.T) {
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			c := privateServer(t, tg.srv)
			s := strategyOpts(t, c, redislease.Options{Mode: tg.mode})
			ctx := ctxT(t)
			l, err := s.Acquire(ctx, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if l, err = s.Renew(ctx, l, time.Hour); err != nil {
				t.Fatalf("Renew on a safe server: %v", err)
			}
			// A private server: changing its configuration touches nobody else.
			if err := c.ConfigSet(ctx, "maxmemory", "64mb").Err(); err != nil {
				t.Fatal(err)
			}
			if err := c.ConfigSet(ctx, "maxmemory-policy", "allkeys-lru").Err(); err != nil {
				t.Fatal(err)
			}
			_, err = s.Renew(ctx, l, time.Hour)
			if !errors.Is(err, driver.ErrLost) || !strings.Contains(err.Error(), "maxmemory-policy allkeys-lru") {
				t.Fatalf("Renew after the policy became allkeys-lru = %v, want ErrLost naming maxmemory-policy allkeys-lru", err)
			}
		})
	}
}

// TestEvictionUnreadable: a server that does not let the client read INFO
// memory (an ACL, as some managed services set) is refused unless the
// application opts in with AcceptUnverifiedEviction; its replicas are
// unreadable too, refused unless AcceptReplicaLoss.
func TestEvictionUnreadable(t *testing.T) {
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			c := privateServer(t, tg.srv)
			ctx := ctxT(t)
			if err := c.Do(ctx, "ACL", "SETUSER", "default", "-info").Err(); err != nil {
				t.Fatal(err)
			}
			s := strategyOpts(t, c, redislease.Options{Mode: tg.mode})
			err := s.Check(ctx)
			if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), "AcceptUnverifiedEviction") {
				t.Fatalf("Check with INFO forbidden = %v, want ErrConfig naming AcceptUnverifiedEviction", err)
			}
			s = strategyOpts(t, c, redislease.Options{Mode: tg.mode, AcceptUnverifiedEviction: true})
			if err := s.Check(ctx); !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), "AcceptReplicaLoss") {
				t.Fatalf("Check with INFO forbidden and AcceptUnverifiedEviction = %v, want ErrConfig naming AcceptReplicaLoss", err)
			}
			s = strategyOpts(t, c, redislease.Options{Mode: tg.mode, AcceptUnverifiedEviction: true, AcceptReplicaLoss: true})
			l, err := s.Acquire(ctx, time.Hour)
			if err != nil {
				t.Fatalf("Acquire with AcceptUnverifiedEviction: %v", err)
			}
			if _, err := s.Renew(ctx, l, time.Hour); err != nil {
				t.Fatalf("Renew with AcceptUnverifiedEviction: %v", err)
			}
		})
	}
}
