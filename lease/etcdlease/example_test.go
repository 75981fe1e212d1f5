package etcdlease_test

import (
	"context"
	"log"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/etcdlease"
	"github.com/once-go/once/lease/leasenotice"
	"github.com/once-go/once/nonce"
)

// A lease manager on the application's etcd client. (Needs a server, so
// it is compiled, not run.)
func Example() {
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:            []string{"127.0.0.1:2379"},
		DialTimeout:          5 * time.Second,
		DialKeepAliveTime:    10 * time.Second, // notice a silently dead connection
		DialKeepAliveTimeout: 3 * time.Second,
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff: backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 5 * time.Second},
		})},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer cli.Close()

	s, err := etcdlease.New(cli, etcdlease.Options{}) // keys once_leases/0 .. once_leases/511
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Check(ctx); err != nil { // unreachable: ErrRetry; no permission: ErrConfig
		log.Fatal(err)
	}
	f, _ := nonce.New(nonce.Config{})
	feed := leasenotice.NewFeed()
	notices := feed.Subscribe(0)
	m, err := lease.Start(ctx, s, lease.Options{Factories: []lease.Factory{f}, Events: feed.Hook})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close(ctx)
	go func() {
		for n := range notices.C() {
			log.Println("lease", n.Kind, n.MachineID, n.Remaining)
		}
	}()
}

// List shows who holds which machine ID, and for how long. (Needs a
// server, so it is compiled, not run.)
func ExampleStrategy_List() {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"127.0.0.1:2379"}, DialTimeout: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer cli.Close()
	s, err := etcdlease.New(cli, etcdlease.Options{})
	if err != nil {
		log.Fatal(err)
	}
	slots, err := s.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, sl := range slots {
		log.Println(sl.MachineID, sl.Holder, sl.TTL)
	}
}
