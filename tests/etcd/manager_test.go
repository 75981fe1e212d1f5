package etcd_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/internal/testonly"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/etcdlease"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/tests/faultproxy"
)

// TestManagerEvents runs a lease manager on etcd through a fault proxy
// with short leases and checks its events: a partition shorter than the
// safe window gives renew retries (the factory keeps generating) and then
// a successful renewal with the same machine ID; a wiped prefix gives a
// loss, then a new lease.
func TestManagerEvents(t *testing.T) {
	testonly.Need(t)
	eps := testenv.Etcd(t)
	p, err := faultproxy.New(eps[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	admin := client(t)
	prefix := namespace(t, admin)
	s, err := etcdlease.New(newClient(t, p.Addr()), etcdlease.Options{Prefix: prefix, RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f, err := nonce.New(nonce.Config{})
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan lease.Event, 1000)
	var dropped atomic.Int64
	opts := lease.Options{
		// Safe window 9s, renewals 1s apart, retry pauses up to 2s: the
		// 1.3s cut below stays well inside the window even when -race on
		// two loaded CPUs makes a call take a second.
		LeaseDuration: 10 * time.Second,
		RenewInterval: 2 * time.Second,
		Factories:     []*nonce.Factory{f},
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		Events: func(e lease.Event) {
			select {
			case events <- e:
			default:
				dropped.Add(1)
			}
		},
	}
	testonly.ShortLeases(&opts)
	m, err := lease.Start(t.Context(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	id := m.MachineID()
	// next waits for an event that should come; the bound is generous
	// (a loaded machine delays it, a missing one fails either way), and
	// what must not happen is checked on the events themselves.
	next := func(what string, within time.Duration, match func(lease.Event) bool) lease.Event {
		t.Helper()
		within = max(within, 20*time.Second)
		deadline := time.After(within)
		for {
			select {
			case e := <-events:
				if match(e) {
					return e
				}
			case <-deadline:
				t.Fatalf("no %s event within %v", what, within)
			}
		}
	}
	ended := func(op lease.Op) func(lease.Event) bool {
		return func(e lease.Event) bool { return e.Kind == lease.EventEnd && e.Op == op && e.Err == nil }
	}
	if e := next("acquired", time.Second, ended(lease.OpAcquire)); e.MachineID != id || e.TTL != 10*time.Second {
		t.Errorf("acquire end event %+v", e)
	}
	next("renewed", 2*time.Second, ended(lease.OpRenew))

	p.Cut()
	retried := func(e lease.Event) bool { return e.Kind == lease.EventRetry && e.Op == lease.OpRenew }
	failed := next("renew retry", 2*time.Second, retried)
	if !errors.Is(failed.Err, driver.ErrRetry) || failed.Delay <= 0 || failed.MachineID != id {
		t.Errorf("renew retry event %+v", failed)
	}
	if _, err := f.Sortable64(); err != nil {
		t.Errorf("factory stopped during a recoverable failure: %v", err)
	}
	time.Sleep(time.Second)
	p.Heal()
	if ok := next("renewed after the heal", 3*time.Second, ended(lease.OpRenew)); ok.MachineID != id || ok.TTL != 10*time.Second {
		t.Errorf("renewal after the heal %+v, want machine ID %d", ok, id)
	}

	wipe(admin, prefix) // revokes the etcd lease and deletes the key
	lost := next("lost", 2*time.Second, func(e lease.Event) bool { return e.Kind == lease.EventLost })
	if !errors.Is(lost.Err, driver.ErrLost) || lost.MachineID != id {
		t.Errorf("lost event %+v", lost)
	}
	again := next("acquired again", 5*time.Second, ended(lease.OpAcquire))
	if m.MachineID() != again.MachineID {
		t.Errorf("acquired after the loss %+v, manager holds %d", again, m.MachineID())
	}
	if n := dropped.Load(); n != 0 {
		t.Errorf("%d events dropped", n)
	}
}
