package lease_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/envlease"
	"github.com/once-go/once/lease/leasetest"
	"github.com/once-go/once/nonce"
)

// Wiring a manager: a StatefulSet pod takes its machine ID from its name,
// and the nonce factory generates only under the lease.
func Example() {
	os.Setenv("EXAMPLE_POD_NAME", "web-3") // set by Kubernetes (Downward API)

	f, err := nonce.New(nonce.Config{})
	if err != nil {
		panic(err)
	}
	if _, err := f.Counter64(); errors.Is(err, nonce.ErrDisabled) {
		fmt.Println("no lease yet: disabled")
	}

	ctx := context.Background()
	m, err := lease.Start(ctx, envlease.New("EXAMPLE_POD_NAME", 0), lease.Options{
		Factories: []*nonce.Factory{f},
		Logger:    quiet,
	})
	if err != nil {
		panic(err)
	}
	defer m.Close(ctx)

	v, err := f.Counter64()
	fmt.Println("machine ID:", m.MachineID(), "in the nonce:", nonce.Split64(v, f.Epoch()).MachineID, err)
	// Output:
	// no lease yet: disabled
	// machine ID: 3 in the nonce: 3 <nil>
}

// The application can declare the lease lost; the factories stop before
// LeaseLost returns, the lost event says why, and a dynamic strategy's
// manager acquires a new lease.
func ExampleManager_LeaseLost() {
	f, _ := nonce.New(nonce.Config{})
	lost := make(chan error, 1)
	m, err := lease.Start(context.Background(), leasetest.NewMemory(512), lease.Options{
		Factories: []*nonce.Factory{f},
		Logger:    quiet,
		Events: func(e lease.Event) {
			if e.Kind == lease.EventLost {
				lost <- e.Err
			}
		},
	})
	if err != nil {
		panic(err)
	}
	defer m.Close(context.Background())

	m.LeaseLost("split-brain alarm")
	fmt.Println("generating:", f.Enabled())
	reason := <-lost
	fmt.Println(errors.Is(reason, lease.ErrExternal), reason)
	// Output:
	// generating: false
	// true lease: declared lost by the application: split-brain alarm
}

// Done and Err tell the application when a lease is gone for good: here a
// deterministic strategy's manager is closed.
func ExampleManager_Done() {
	os.Setenv("EXAMPLE_POD_NAME", "web-0")
	f, _ := nonce.New(nonce.Config{})
	m, err := lease.Start(context.Background(), envlease.New("EXAMPLE_POD_NAME", 0), lease.Options{
		Factories: []*nonce.Factory{f},
		Logger:    quiet,
	})
	if err != nil {
		panic(err)
	}
	go m.Close(context.Background())
	<-m.Done()
	fmt.Println(m.Err(), m.MachineID())
	// Output: lease: manager closed -1
}

// A service's shutdown: Start's context (signal.NotifyContext in main)
// bounds the start only, so requests still in flight when it ends get
// their IDs. Stop accepting and drain first, then Close the manager (new
// IDs stop, the machine ID is released), then close the database.
func ExampleStart_shutdown() {
	ids, _ := nonce.New(nonce.Config{})
	ctx, sigterm := context.WithCancel(context.Background())
	m, err := lease.Start(ctx, leasetest.NewMemory(512), lease.Options{
		Factories: []*nonce.Factory{ids},
		Logger:    quiet,
	})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, err := ids.Counter64()
		fmt.Fprintf(w, "new ID: %v", err == nil)
	}))

	sigterm() // the application's context ends; a request is in flight
	resp, err := http.Get(srv.URL)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(string(body))

	srv.Close()                   // 1. stop accepting, finish the requests in flight
	m.Close(context.Background()) // 2. stop new IDs, release the machine ID
	// 3. db.Close()
	_, err = ids.Counter64()
	fmt.Println("after Close:", err)
	// Output:
	// new ID: true
	// after Close: nonce: factory disabled
}

// Two instances of one service with different keys (a half-rolled
// secret): the second warns (EventKeyMismatch), and with
// RefuseKeyMismatch a third does not start at all.
func ExampleOptions_refuseKeyMismatch() {
	pool := leasetest.NewMemory(512) // one coordinator, shared
	start := func(key string, refuse bool) (*lease.Manager, error) {
		f, err := nonce.New(nonce.Config{BaseKey: []byte(key)})
		if err != nil {
			return nil, err
		}
		return lease.Start(context.Background(), pool, lease.Options{
			Factories:         []*nonce.Factory{f},
			RefuseKeyMismatch: refuse,
			Logger:            quiet,
			Events: func(e lease.Event) {
				if e.Kind == lease.EventKeyMismatch {
					fmt.Println("warning: machine ID", e.MachineID, "runs with another key")
				}
			},
		})
	}
	a, _ := start("the-old-key-of-the-service-0123456789", false)
	defer a.Close(context.Background())
	b, _ := start("the-new-key-of-the-service-0123456789", false)
	defer b.Close(context.Background())
	_, err := start("the-new-key-of-the-service-0123456789", true) // warns, then refuses
	fmt.Println("refused:", errors.Is(err, lease.ErrConfig))
	// Output:
	// warning: machine ID 0 runs with another key
	// warning: machine ID 0 runs with another key
	// refused: true
}
