package redislease_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease/redislease"
)

// Key mode on the application's own client: works on any Redis >= 6,
// Valkey and Redis Cluster. (Needs a server, so it is compiled, not run.)
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer rdb.Close()

	s, err := redislease.New(rdb, redislease.Options{Mode: redislease.ModeKey})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Check(ctx); err != nil { // unsupported server: lease.ErrConfig
		log.Fatal(err)
	}
	l, err := s.Acquire(ctx, 8*time.Hour)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Release(ctx, l)
	fmt.Println("machine ID", l.MachineID)
	// Hand s to lease.Start instead of calling Acquire yourself: the manager
	// renews, handles loss and enables the nonce factories.
}

// Hash mode from an address: Redis >= 8.0 or Valkey >= 9.0, the layout the
// Elixir library shares. (Needs a server, so it is compiled, not run.)
func ExampleOpen() {
	s, err := redislease.Open("redis://127.0.0.1:6380/0", redislease.Options{Mode: redislease.ModeHash})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if err := s.Check(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func ExampleParseMode() {
	rdb := redis.NewClient(&redis.Options{}) // New does no I/O
	defer rdb.Close()
	for _, flag := range []string{"hash", "key", "auto"} {
		m, err := redislease.ParseMode(flag)
		if err != nil {
			fmt.Println(err)
			continue
		}
		s, _ := redislease.New(rdb, redislease.Options{Mode: m})
		fmt.Println(m, s.Name(), s.Key())
	}
	// Output:
	// hash redis-hash once_leases
	// key redis-key once_leases
	// redislease: mode "auto" is not "hash" or "key": lease: invalid configuration
}
