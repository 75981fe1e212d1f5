package k8s_test

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/once-go/once/internal/leasehook"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/k8slease"
	"github.com/once-go/once/tests/faultproxy"
)

// proxied puts a fault proxy in front of cfg's server (TLS passes through
// it: the client skips verification of the test server's certificate) and
// returns the proxy and a configuration that goes through it.
func proxied(t *testing.T, cfg *rest.Config) (*faultproxy.Proxy, *rest.Config) {
	t.Helper()
	u, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	p, err := faultproxy.New(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	pc := rest.CopyConfig(cfg)
	pc.Host = "https://" + p.Addr()
	return p, pc
}

// TestPartition: behind a proxy that resets, black-holes or swallows
// replies, every call fails with ErrRetry within about the request
// timeout; a claim whose reply was lost is returned beside the error and
// its release frees it; a renewal whose replies were lost succeeds once
// the partition heals.
func TestPartition(t *testing.T) {
	cfg := restConfig(t)
	ns := namespace(t, clientset(t, cfg))
	p, pc := proxied(t, cfg)
	s := strategy(t, pc, ns, k8slease.Options{RequestTimeout: time.Second})
	ctx := ctxT(t)
	l, err := s.Acquire(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"Renew":   func() error { _, err := s.Renew(ctx, l, time.Minute); return err },
		"Acquire": func() error { _, err := s.Acquire(ctx, time.Minute); return err },
		"Release": func() error { return s.Release(ctx, driver.Lease{MachineID: l.MachineID, Token: l.Token + "x"}) },
		"List":    func() error { _, err := s.List(ctx); return err },
	}
	for _, fault := range []struct {
		name  string
		apply func()
	}{{"cut", p.Cut}, {"blackhole", p.Blackhole}} {
		fault.apply()
		for name, call := range calls {
			t0 := time.Now()
			err := call()
			if !errors.Is(err, driver.ErrRetry) || errors.Is(err, driver.ErrLost) || errors.Is(err, driver.ErrConfig) {
				t.Errorf("%s during a %s: %v, want ErrRetry only", name, fault.name, err)
			}
			if took := time.Since(t0); took > 3*time.Second {
				t.Errorf("%s during a %s took %v (request timeout 1s)", name, fault.name, took)
			}
		}
		p.Heal()
		if l, err = renewSoon(t, s, l); err != nil {
			t.Fatalf("Renew after the %s healed: %v", fault.name, err)
		}
	}

	// A renewal whose replies are lost: unknown outcome, then a successful
	// renewal once they flow again.
	p.DropReplies(-1)
	if _, err := s.Renew(ctx, l, time.Minute); !errors.Is(err, driver.ErrRetry) {
		t.Errorf("Renew with its reply lost: %v, want ErrRetry", err)
	}
	p.Heal()
	if l, err = renewSoon(t, s, l); err != nil {
		t.Fatalf("Renew after the replies flow again: %v", err)
	}

	// A claim applied whose reply is lost. The first Acquire lists the
	// pool; the second, within a second, claims one of its free IDs
	// without listing again, so only the claim's reply is swallowed.
	if _, err := s.Acquire(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	p.DropReplies(-1)
	lost, err := s.Acquire(ctx, time.Minute)
	p.Heal()
	if !errors.Is(err, driver.ErrRetry) || lost.Token == "" {
		t.Fatalf("Acquire with its claim's reply lost: %+v, %v; want the claim beside ErrRetry", lost, err)
	}
	admin := clientset(t, cfg)
	if rec := getLease(t, admin, ns, s.LeaseName(lost.MachineID)); rec.Spec.HolderIdentity == nil || *rec.Spec.HolderIdentity != lost.Token {
		t.Fatalf("the lost claim's Lease: %+v; want it held with the returned token", rec.Spec)
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if err = s.Release(ctx, lost); err == nil || time.Now().After(end) {
			break
		}
	}
	if rec := getLease(t, admin, ns, s.LeaseName(lost.MachineID)); err != nil || rec.Spec.HolderIdentity != nil {
		t.Errorf("releasing the reported claim: %v; Lease %+v", err, rec.Spec)
	}
}

// renewSoon renews l, retrying ErrRetry for up to 10s (connections come
// back).
func renewSoon(t *testing.T, s *k8slease.Strategy, l driver.Lease) (driver.Lease, error) {
	t.Helper()
	end := time.Now().Add(10 * time.Second)
	for {
		r, err := s.Renew(ctxT(t), l, time.Minute)
		if err == nil || !errors.Is(err, driver.ErrRetry) || time.Now().After(end) {
			return r, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPartitionManager: a lease manager on 2s leases loses the API server
// to a black hole. Its renewals fail, the factory keeps generating until
// the deadline of the last successful renewal and stops then (not
// before, not much after); once the partition heals it holds a lease and
// generates again.
func TestPartitionManager(t *testing.T) {
	cfg := restConfig(t)
	ns := namespace(t, clientset(t, cfg))
	p, pc := proxied(t, cfg)
	s := strategy(t, pc, ns, k8slease.Options{RequestTimeout: time.Second})
	f := newSkewedFactory(0)
	m, err := lease.Start(leasehook.With(context.Background(), f), s, shortOptions(lease.Options{
		LeaseDuration: 2 * time.Second,
		RenewInterval: time.Second,
		Logger:        discardLogger(),
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	time.Sleep(1500 * time.Millisecond)
	p.Blackhole()
	var stopped time.Time
	for end := time.Now().Add(10 * time.Second); stopped.IsZero(); time.Sleep(time.Millisecond) {
		if _, err := f.f.Sortable64(); err != nil {
			stopped = time.Now()
		}
		if time.Now().After(end) {
			t.Fatal("still generating 10s into the partition")
		}
	}
	deadline := f.deadline()
	t.Logf("generation stopped %v after the last renewal's deadline", stopped.Sub(deadline))
	if stopped.Before(deadline.Add(-5*time.Millisecond)) || stopped.After(deadline.Add(200*time.Millisecond)) {
		t.Errorf("generation stopped %v after the deadline of the last successful renewal; want at the deadline", stopped.Sub(deadline))
	}
	time.Sleep(time.Second)
	p.Heal()
	healed := time.Now()
	for end := healed.Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := f.f.Sortable64(); err == nil {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("not generating 20s after the partition healed (manager: %v)", m.Err())
		}
	}
	t.Logf("generating again %v after the partition healed, machine ID %d", time.Since(healed).Round(time.Millisecond), m.MachineID())
}
