//go:build kubernetes

package coord

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/k8slease"
)

func init() {
	// client-go logs transport errors through klog on its own; the CLI
	// reports them once, in its own words.
	klog.SetLogger(logr.Discard())
	Register(&Driver{Name: "kubernetes", NoMigrate: true, DSNOptional: true,
		LeaseDuration: k8slease.LeaseDuration, AcquireTimeout: k8slease.AcquireTimeout,
		DSN: "KUBECONFIG (a kubeconfig file: its current context's server, credentials and namespace; " +
			`"" or no --dsn: the pod's in-cluster configuration and namespace); --table is the prefix of the Lease names PREFIX-ID ` +
			"(default " + k8slease.DefaultPrefix + "); needs get, list, create and update on leases in that namespace",
		Open: openK8s})
}

// k8sWords names the k8slease options in its messages by the flags that
// set them.
var k8sWords = strings.NewReplacer("Options.Prefix", "--table")

// openK8s prepares a client of the API server the kubeconfig --dsn names
// (in-cluster without one); its check lists the pool's Lease objects.
func openK8s(ctx context.Context, cfg Config) (*Backend, error) {
	s, err := k8slease.Open(cfg.DSN, k8slease.Options{Prefix: cfg.Table})
	switch {
	case err != nil && strings.Contains(err.Error(), "Options.Prefix"):
		return nil, UsageError{Err: reworded{err, k8sWords}}
	case err != nil && cfg.DSN == "":
		return nil, fmt.Errorf("%w (run in a pod, or give --dsn KUBECONFIG)", err)
	case err != nil:
		return nil, err
	}
	check := func(ctx context.Context) error {
		err := s.Check(ctx)
		if err == nil || errors.Is(err, lease.ErrConfig) {
			return err
		}
		return fmt.Errorf("connecting to the Kubernetes API server: %w", err)
	}
	return &Backend{
		Strategy: s,
		Check:    check,
		Explain:  func(err error) error { return reworded{err, k8sWords} },
		Close:    func() error { return nil },
	}, nil
}
