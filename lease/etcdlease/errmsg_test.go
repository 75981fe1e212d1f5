package etcdlease_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/once-go/once/lease/driver"
)

// TestErrorsNameTheMachineID: an error of an operation on one machine ID
// names it, ID 0 included; an operation on no ID (Check, List, Acquire's
// list and grant) names none.
func TestErrorsNameTheMachineID(t *testing.T) {
	real := client(t)
	prefix := namespace(t, real)
	held, err := strategy(t, real, prefix, true).Acquire(ctxT(t), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if held.MachineID != 0 {
		t.Fatalf("lowest-first Acquire on an empty prefix took ID %d, want 0", held.MachineID)
	}
	fc := newClient(t, real.Endpoints()...)
	on := func() error { return status.Error(codes.Unavailable, "connection refused") }
	fc.KV = faultKV{KV: fc.KV, err: on}
	fc.Lease = faultLease{Lease: fc.Lease, err: on}
	s := strategy(t, fc, prefix, true)
	ctx := ctxT(t)
	if _, err := s.Renew(ctx, held, time.Minute); err == nil || !strings.Contains(err.Error(), "renew of machine ID 0 under") {
		t.Errorf("Renew of ID 0: %v, want it to name machine ID 0", err)
	}
	noID := func(op string, err error, want string) {
		t.Helper()
		if err == nil || strings.Contains(err.Error(), "machine ID") || !strings.Contains(err.Error(), want+" under") {
			t.Errorf("%s: %v, want %q and no machine ID named", op, err, want)
		}
	}
	noID("Check", s.Check(ctx), "check")
	_, err = s.List(ctx)
	noID("List", err, "list")
	_, err = s.Acquire(ctx, time.Minute)
	noID("Acquire", err, "acquire (list)")
	// Only the grant fails.
	gc := newClient(t, real.Endpoints()...)
	gc.Lease = faultLease{Lease: gc.Lease, err: on}
	_, err = strategy(t, gc, prefix, true).Acquire(ctx, time.Minute)
	noID("Acquire", err, "acquire (grant)")
}

// zeroTTLLease grants real etcd leases but reports a TTL of 0.
type zeroTTLLease struct{ clientv3.Lease }

func (z zeroTTLLease) Grant(ctx context.Context, ttl int64) (*clientv3.LeaseGrantResponse, error) {
	g, err := z.Lease.Grant(ctx, ttl)
	if err == nil {
		g.TTL = 0
	}
	return g, err
}

// TestGrantOfNoTTL: an etcd lease granted with a TTL of 0 is not used: the
// Acquire fails with ErrRetry and claims nothing.
func TestGrantOfNoTTL(t *testing.T) {
	real := client(t)
	prefix := namespace(t, real)
	fc := newClient(t, real.Endpoints()...)
	fc.Lease = zeroTTLLease{fc.Lease}
	l, err := strategy(t, fc, prefix, true).Acquire(ctxT(t), time.Minute)
	if !errors.Is(err, driver.ErrRetry) || l.Token != "" {
		t.Errorf("Acquire on a lease granted with TTL 0 = %+v, %v; want ErrRetry", l, err)
	}
	if _, _, ok := keyOf(t, real, prefix, 0); ok {
		t.Error("the key of machine ID 0 was written")
	}
}
