package redislease_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease/redislease"
)

// Key mode on the application's own client: works on any Redis >= 6 and
// Valkey. (Needs a server, so it is compiled, not run.)
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

// Redis Cluster with a replica per master: every claim and renewal waits
// for the replica's acknowledgement, so a failover keeps every lease a
// holder trusts. (Needs a cluster, so it is compiled, not run.)
func ExampleNew_cluster() {
	rdb := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                 []string{"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"},
		ContextTimeoutEnabled: true,
	})
	defer rdb.Close()
	s, err := redislease.New(rdb, redislease.Options{Mode: redislease.ModeKey, WaitReplicas: 1})
	if err != nil {
		log.Fatal(err)
	}
	// Check refuses a master with more replicas than WaitReplicas.
	if err := s.Check(context.Background()); err != nil {
		log.Fatal(err)
	}
}

// List shows who holds which machine ID. (Needs a server, so it is
// compiled, not run.)
func ExampleStrategy_List() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6380", ContextTimeoutEnabled: true})
	defer rdb.Close()
	s, err := redislease.New(rdb, redislease.Options{Mode: redislease.ModeHash, Holder: "web-1"})
	if err != nil {
		log.Fatal(err)
	}
	slots, err := s.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, sl := range slots {
		fmt.Println(sl.MachineID, sl.Holder, sl.TTL.Round(time.Second))
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
