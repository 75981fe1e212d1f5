package leasenotice_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/leasenotice"
	"github.com/once-go/once/lease/leasetest"
	"github.com/once-go/once/nonce"
)

// A Feed gives subscribers the lease's etcd3-style notices (acquired,
// keepalive_fired/succeeded/failed, lost, released) without ever blocking
// the manager.
func ExampleFeed() {
	f, _ := nonce.New(nonce.Config{})
	feed := leasenotice.NewFeed()
	sub := feed.Subscribe(16)

	ctx := context.Background()
	m, err := lease.Start(ctx, leasetest.NewMemory(512), lease.Options{
		Factories: []lease.Factory{f},
		Logger:    slog.New(slog.DiscardHandler),
		Events:    feed.Hook,
	})
	if err != nil {
		panic(err)
	}
	m.Close(ctx)
	feed.Close()

	for n := range sub.C() {
		fmt.Println(n.Kind, n.Source, n.MachineID, n.Result, n.Remaining > 0)
	}
	// Output:
	// acquired initial 0 ok true
	// released shutdown 0 ok false
}
