package redislease_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/redislease"
)

// target is one server and mode the strategy is tested against.
type target struct {
	name string
	srv  testenv.Server
	mode redislease.Mode
}

var targets = []target{
	{"redis7/key", testenv.Redis7, redislease.ModeKey},
	{"redis8/hash", testenv.Redis8, redislease.ModeHash},
	{"redis8/key", testenv.Redis8, redislease.ModeKey},
	{"valkey9/hash", testenv.Valkey9, redislease.ModeHash},
	{"valkey9/key", testenv.Valkey9, redislease.ModeKey},
}

// hashTargets are the servers that support hash mode; keyTargets the
// key-mode targets.
var (
	hashTargets = []target{targets[1], targets[3]}
	keyTargets  = []target{targets[0], targets[2], targets[4]}
)

// forEach runs fn as a parallel subtest per target.
func forEach(t *testing.T, ts []target, fn func(t *testing.T, tg target)) {
	t.Helper()
	for _, tg := range ts {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			fn(t, tg)
		})
	}
}

// client connects to tg's server (skipping or failing per ONCE_TEST_REQUIRE
// when it is down) with a pool large enough for the contention tests.
func client(t testing.TB, srv testenv.Server) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{
		Addr:                  testenv.Redis(t, srv),
		PoolSize:              50,
		ContextTimeoutEnabled: true,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// namespace returns a fresh NAME and deletes everything under it (the hash
// and the 512 keys) when the test ends.
func namespace(t testing.TB, c *redis.Client) string {
	t.Helper()
	name := testenv.Unique(t, "once_leases")
	t.Cleanup(func() { cleanup(c, name) })
	return name
}

func cleanup(c *redis.Client, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.Del(ctx, append([]string{name}, idKeys(name)...)...)
}

func idKeys(name string) []string {
	keys := make([]string, redislease.Capacity)
	for i := range keys {
		keys[i] = idKey(name, i)
	}
	return keys
}

func idKey(name string, id int) string {
	return "{" + name + "}:" + strconv.Itoa(id)
}

// strategy builds a strategy on c for tg's mode and the given NAME, with
// the default release hold.
func strategy(t testing.TB, c redislease.Client, mode redislease.Mode, name string, lowest bool) *redislease.Strategy {
	t.Helper()
	return strategyOpts(t, c, redislease.Options{Mode: mode, Name: name, LowestFirst: lowest})
}

// strategyOpts builds a strategy on c with o.
func strategyOpts(t testing.TB, c redislease.Client, o redislease.Options) *redislease.Strategy {
	t.Helper()
	s, err := redislease.New(c, o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// noHold is the ReleaseHold of a strategy whose Release deletes at once.
const noHold = -1

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
