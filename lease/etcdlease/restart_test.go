package etcdlease_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/etcdlease"
)

// TestServerRestart: a private etcd is killed (SIGKILL) under a held
// lease. While it is down every call fails with ErrRetry within the
// request timeout; once it is back with its data, the renewal succeeds
// with the same machine ID, key and etcd lease (etcd keeps both and
// refreshes lease TTLs when a leader is elected). A server that comes
// back empty has forgotten the key: the renewal is ErrLost.
func TestServerRestart(t *testing.T) {
	srv := startEtcd(t)
	c := newClient(t, srv.addr)
	s, err := etcdlease.New(c, etcdlease.Options{RequestTimeout: 500 * time.Millisecond, LowestFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	l, err := s.Acquire(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	srv.kill()
	for _, op := range []func() error{
		func() error { _, err := s.Renew(ctx, l, time.Minute); return err },
		func() error { _, err := s.Acquire(ctx, time.Minute); return err },
		func() error { return s.Release(ctx, driver.Lease{MachineID: 5, Token: l.Token}) },
	} {
		t0 := time.Now()
		if err := op(); !errors.Is(err, driver.ErrRetry) {
			t.Errorf("with the server down: %v, want ErrRetry", err)
		}
		if took := time.Since(t0); took > 2*time.Second {
			t.Errorf("a call on a dead server took %v (request timeout 500ms)", took)
		}
	}
	if err := srv.restart(false); err != nil {
		t.Fatal(err)
	}
	r := renewEventually(t, s, l)
	if r.MachineID != l.MachineID || r.Token != l.Token {
		t.Errorf("after the restart: %+v, want the same lease %+v", r, l)
	}
	if err := srv.restart(true); err != nil {
		t.Fatal(err)
	}
	if _, err := renewOnce(t, s, l); !errors.Is(err, driver.ErrLost) {
		t.Errorf("after a restart without data: %v, want ErrLost", err)
	}
}

// renewEventually renews l, retrying ErrRetry for up to 10s (the client
// reconnects with backoff).
func renewEventually(t *testing.T, s *etcdlease.Strategy, l driver.Lease) driver.Lease {
	t.Helper()
	end := time.Now().Add(10 * time.Second)
	for {
		r, err := s.Renew(ctxT(t), l, time.Minute)
		if err == nil {
			return r
		}
		if !errors.Is(err, driver.ErrRetry) || time.Now().After(end) {
			t.Fatalf("Renew after the restart: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// renewOnce renews l, retrying only ErrRetry, and returns the first other
// outcome.
func renewOnce(t *testing.T, s *etcdlease.Strategy, l driver.Lease) (driver.Lease, error) {
	t.Helper()
	end := time.Now().Add(10 * time.Second)
	for {
		r, err := s.Renew(context.Background(), l, time.Minute)
		if !errors.Is(err, driver.ErrRetry) || time.Now().After(end) {
			return r, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
