package k8slease_test

import (
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/k8slease"
	"github.com/once-go/once/lease/leasetest"
)

// TestLeasetest runs the conformance suite on the real API server: each
// namespace is a fresh Kubernetes namespace (deleted afterwards), each
// contender its own strategy and clientset (as a separate process would
// hold), Broken a client of a dead port.
func TestLeasetest(t *testing.T) {
	cfg := restConfig(t)
	leasetest.Run(t, leasetest.Harness{
		New: func(t *testing.T) func() driver.Strategy {
			ns := namespace(t, clientset(t, cfg))
			return func() driver.Strategy { return strategy(t, cfg, ns, k8slease.Options{}) }
		},
		Range: func(t *testing.T, r driver.IDRange) func() (driver.Strategy, error) {
			ns := namespace(t, clientset(t, cfg))
			return func() (driver.Strategy, error) {
				return k8slease.New(clientset(t, cfg), k8slease.Options{Namespace: ns, MachineIDs: &r})
			}
		},
		Broken: func(t *testing.T) driver.Strategy {
			dead := rest.CopyConfig(cfg)
			dead.Host = "https://" + testenv.DeadAddr(t)
			return strategy(t, dead, "default", k8slease.Options{RequestTimeout: time.Second})
		},
		// Whole seconds (leaseDurationSeconds); 2s leaves a renewing
		// holder room for a slow request on a loaded machine.
		ShortTTL: 2 * time.Second,
	})
}
