package k8slease_test

import (
	"context"
	"log"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/k8slease"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// A Deployment's pod leases its machine ID from the API server with the
// service account's in-cluster configuration, in its own namespace (the
// Role it needs is in the package documentation). The state file lives on
// an emptyDir, so a restarted container takes its own lease back.
func ExampleOpen() {
	s, err := k8slease.Open("", k8slease.Options{}) // "": in-cluster; or a kubeconfig path
	if err != nil {
		log.Fatal(err)
	}
	f, err := nonce.New(nonce.Config{BaseKey: []byte("32+ bytes of the application's key ...")})
	if err != nil {
		log.Fatal(err)
	}
	m, err := lease.Start(context.Background(), s, lease.Options{
		Factories:      []lease.Factory{f},
		LeaseDuration:  k8slease.LeaseDuration,
		RenewInterval:  k8slease.RenewInterval,
		AcquireTimeout: k8slease.AcquireTimeout,
		StateFile:      "/run/once/lease",
	})
	if err != nil {
		log.Fatal(err) // lease.ErrConfig names a missing RBAC verb
	}
	defer m.Close(context.Background())
	once.DefaultBinding().Set(f)
}
