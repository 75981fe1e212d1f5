package k8slease_test

import (
	"errors"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/k8slease"
)

// TestServerRestart: a private API server is killed (SIGKILL) under a held
// lease. While it is down every call fails with ErrRetry within about the
// request timeout; once it is back (its data is in etcd), the renewal
// succeeds with the same machine ID and token, and the Lease was not
// handed to anyone meanwhile.
func TestServerRestart(t *testing.T) {
	srv := startAPIServer(t)
	cfg := srv.config("admin")
	cs := clientset(t, cfg)
	ns := namespace(t, cs)
	s := strategy(t, cfg, ns, k8slease.Options{RequestTimeout: 500 * time.Millisecond, LowestFirst: true})
	ctx := ctxT(t)
	l, err := s.Acquire(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	srv.kill()
	for name, op := range map[string]func() error{
		"Renew":   func() error { _, err := s.Renew(ctx, l, time.Minute); return err },
		"Acquire": func() error { _, err := s.Acquire(ctx, time.Minute); return err },
		"Reclaim": func() error {
			_, err := s.Reclaim(ctx, driver.Lease{MachineID: l.MachineID, Token: l.Token}, time.Minute)
			return err
		},
		"Release": func() error { return s.Release(ctx, l) },
		"List":    func() error { _, err := s.List(ctx); return err },
	} {
		t0 := time.Now()
		if err := op(); !errors.Is(err, driver.ErrRetry) || errors.Is(err, driver.ErrLost) || errors.Is(err, driver.ErrConfig) {
			t.Errorf("%s with the server down: %v, want ErrRetry only", name, err)
		}
		if took := time.Since(t0); took > 3*time.Second {
			t.Errorf("%s on a dead server took %v (request timeout 500ms)", name, took)
		}
	}
	if err := srv.restart(); err != nil {
		t.Fatal(err)
	}
	var r driver.Lease
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r, err = s.Renew(ctx, l, time.Minute)
		if err == nil {
			break
		}
		if !errors.Is(err, driver.ErrRetry) || time.Now().After(end) {
			t.Fatalf("Renew after the restart: %v", err)
		}
	}
	if r.MachineID != l.MachineID || r.Token != l.Token {
		t.Errorf("after the restart: %+v, want the same lease %+v", r, l)
	}
	rec := getLease(t, cs, ns, s.LeaseName(l.MachineID))
	if *rec.Spec.LeaseTransitions != 0 || *rec.Spec.HolderIdentity != l.Token {
		t.Errorf("after the restart the Lease is %+v", rec.Spec)
	}
}
