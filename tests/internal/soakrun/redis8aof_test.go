package soakrun

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/redislease"
	"github.com/once-go/once/nonce"
)

// TestRedisRestartKeepsHashLeases restarts a Redis 8 / Valkey 9 server
// that persists every write (appendonly yes, appendfsync always) under a
// holder whose lease is older than its TTL, and expects the lease to
// survive: the holder renews it and a second process that asks for the
// lowest free ID does not get the holder's. Redis 8 logs each HSETEX with
// its absolute expiry (PXAT), so the strategy's scripts must write
// unconditionally after their own token checks: a replayed HSETEX FXX finds
// no field once the expiry it conditions on has passed.
func TestRedisRestartKeepsHashLeases(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: restarts private servers under a 30s lease (40s)")
	}
	for _, name := range []string{"redis8", "valkey9"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bin := filepath.Join(envOr("KV_DIR", "/opt/once-kv"), name+".sh")
			if _, err := os.Stat(bin); err != nil {
				if os.Getenv("ONCE_TEST_REQUIRE") == "1" {
					t.Fatalf("%s not found (../shared/tools/kv-servers.sh fetch)", bin)
				}
				t.Skipf("%s not found (../shared/tools/kv-servers.sh fetch)", bin)
			}
			ctx := context.Background()
			srv, err := startServer(ctx, &server{kind: "redis", bin: bin, dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.kill()
			start := func(reason chan<- error) *lease.Manager {
				c := redis.NewClient(&redis.Options{Addr: srv.addr, ContextTimeoutEnabled: true})
				t.Cleanup(func() { c.Close() })
				s, err := redislease.New(c, redislease.Options{Mode: redislease.ModeHash, Name: "restart_test", LowestFirst: true})
				if err != nil {
					t.Fatal(err)
				}
				f, err := nonce.New(nonce.Config{})
				if err != nil {
					t.Fatal(err)
				}
				var once sync.Once
				m, err := lease.Start(ctx, s, lease.Options{Factories: []*nonce.Factory{f}, LeaseDuration: 30 * time.Second, RenewInterval: 12 * time.Second,
					Events: func(e lease.Event) {
						if e.Kind == lease.EventLost {
							once.Do(func() { reason <- e.Err })
						}
					}})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { m.Close(context.Background()) })
				return m
			}
			lost := make(chan error, 1)
			a := start(lost)
			held := a.MachineID()
			// Past the TTL of the first claim: every write since is a renewal.
			time.Sleep(32 * time.Second)
			if err := srv.restart(ctx); err != nil {
				t.Fatal(err)
			}
			b := start(make(chan error, 1))
			select {
			case err := <-lost:
				t.Errorf("holder of machine ID %d lost its lease after a restart that keeps every write: %v", held, err)
			case <-time.After(5 * time.Second):
			}
			if b.MachineID() == held {
				t.Errorf("after the restart a second process acquired machine ID %d, still held by the first", held)
			}
		})
	}
}
