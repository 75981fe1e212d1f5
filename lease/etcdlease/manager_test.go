package etcdlease_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/once-go/once/internal/faultproxy"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/internal/testonly"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/etcdlease"
	"github.com/once-go/once/lease/leasenotice"
	"github.com/once-go/once/nonce"
)

// TestManagerNotices runs a lease manager on etcd through a fault proxy
// with short leases and checks its etcd3-style notices: a partition
// shorter than the safe window gives keepalive_failed notices (the
// factory keeps generating) and then keepalive_succeeded with the same
// machine ID; a wiped prefix gives lost, then acquired again.
func TestManagerNotices(t *testing.T) {
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
	feed := leasenotice.NewFeed()
	sub := feed.Subscribe(1000)
	opts := lease.Options{
		// Safe window 9s, renewals 1s apart, retry pauses up to 2s: the
		// 1.3s cut below stays well inside the window even when -race on
		// two loaded CPUs makes a call take a second.
		LeaseDuration: 10 * time.Second,
		RenewInterval: 2 * time.Second,
		Factories:     []lease.Factory{f},
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		Events:        feed.Hook,
	}
	testonly.ShortLeases(&opts)
	m, err := lease.Start(t.Context(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	id := m.MachineID()
	// next waits for a notice that should come; the bound is generous
	// (a loaded machine delays it, a missing one fails either way), and
	// what must not happen is checked on the notices themselves.
	next := func(kind leasenotice.NoticeKind, within time.Duration) leasenotice.Notice {
		t.Helper()
		within = max(within, 20*time.Second)
		deadline := time.After(within)
		for {
			select {
			case n := <-sub.C():
				if n.Kind == kind {
					return n
				}
			case <-deadline:
				t.Fatalf("no %s notice within %v", kind, within)
			}
		}
	}
	if n := next(leasenotice.NoticeAcquired, time.Second); n.Strategy != "etcd" || n.MachineID != id || n.GrantedTTL != 10*time.Second {
		t.Errorf("acquired notice %+v", n)
	}
	next(leasenotice.NoticeKeepAliveSucceeded, 2*time.Second)

	p.Cut()
	failed := next(leasenotice.NoticeKeepAliveFailed, 2*time.Second)
	if !errors.Is(failed.Reason, lease.ErrRetry) || failed.Remaining <= 0 || failed.MachineID != id {
		t.Errorf("keepalive_failed notice %+v", failed)
	}
	if _, err := f.Sortable64(); err != nil {
		t.Errorf("factory stopped during a recoverable failure: %v", err)
	}
	time.Sleep(time.Second)
	p.Heal()
	ok := next(leasenotice.NoticeKeepAliveSucceeded, 3*time.Second)
	// The success opened a new window: its end lies past the one the
	// failure still ran on.
	if ok.MachineID != id || ok.Attempt < 2 || ok.Remaining <= 0 || !ok.ValidUntil.After(failed.ValidUntil) {
		t.Errorf("keepalive_succeeded after the heal %+v, want machine ID %d, attempt >= 2, a window past %v", ok, id, failed.ValidUntil)
	}

	wipe(admin, prefix) // revokes the etcd lease and deletes the key
	lost := next(leasenotice.NoticeLost, 2*time.Second)
	if !errors.Is(lost.Reason, lease.ErrLost) || lost.MachineID != id || lost.Result != "lost" {
		t.Errorf("lost notice %+v", lost)
	}
	again := next(leasenotice.NoticeAcquired, 5*time.Second)
	if again.Source != lease.SourceReacquire || m.MachineID() != again.MachineID {
		t.Errorf("acquired after the loss %+v, manager holds %d", again, m.MachineID())
	}
	if sub.Dropped() != 0 {
		t.Errorf("%d notices dropped", sub.Dropped())
	}
}
