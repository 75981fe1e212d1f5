package lease_test

import (
	"context"
	"errors"
	"fmt"
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

	f, err := nonce.New(nonce.Config{AwaitLease: true})
	if err != nil {
		panic(err)
	}
	if _, err := f.Counter64(); errors.Is(err, nonce.ErrDisabled) {
		fmt.Println("no lease yet: disabled")
	}

	ctx := context.Background()
	m, err := lease.Start(ctx, envlease.New("EXAMPLE_POD_NAME", 0), lease.Options{
		Factories: []lease.Factory{f},
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
// LeaseLost returns, OnLost learns why, and a dynamic strategy's manager
// acquires a new lease.
func ExampleManager_LeaseLost() {
	f, _ := nonce.New(nonce.Config{AwaitLease: true})
	lost := make(chan error, 1)
	m, err := lease.Start(context.Background(), leasetest.NewMemory(512), lease.Options{
		Factories: []lease.Factory{f},
		Logger:    quiet,
		OnLost:    func(reason error) { lost <- reason },
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
	f, _ := nonce.New(nonce.Config{AwaitLease: true})
	m, err := lease.Start(context.Background(), envlease.New("EXAMPLE_POD_NAME", 0), lease.Options{
		Factories: []lease.Factory{f},
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
