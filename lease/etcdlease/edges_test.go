package etcdlease_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/etcdlease"
)

// TestOptionsAtTheLimits: a prefix of 200 bytes is accepted and one of
// 201 refused; a prefix ending in any digit, '0' and '9' included, is
// refused, and one ending in the bytes just outside them ('/' and ':')
// accepted.
func TestOptionsAtTheLimits(t *testing.T) {
	c := client(t)
	for _, p := range []string{strings.Repeat("x", 199) + "/", "a/", "a:"} {
		if _, err := etcdlease.New(c, etcdlease.Options{Prefix: p}); err != nil {
			t.Errorf("New with Prefix %.20q (%d bytes): %v", p, len(p), err)
		}
	}
	for _, p := range []string{strings.Repeat("x", 200) + "/", "a0", "a9", "a5"} {
		if _, err := etcdlease.New(c, etcdlease.Options{Prefix: p}); !errors.Is(err, driver.ErrConfig) {
			t.Errorf("New with Prefix %.20q (%d bytes) = %v, want ErrConfig", p, len(p), err)
		}
	}
}

// TestReleaseRevokesUnusedHold: releasing a lease whose key is no longer
// its own revokes the etcd lease granted for the hold, which holds no key.
func TestReleaseRevokesUnusedHold(t *testing.T) {
	real := client(t)
	prefix := namespace(t, real)
	ctx := ctxT(t)
	l, err := strategy(t, real, prefix, true).Acquire(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := strategy(t, real, prefix, true).Release(ctx, l); err != nil {
		t.Fatal(err)
	}
	fc := newClient(t, real.Endpoints()...)
	granted := make(chan clientv3.LeaseID, 1)
	fc.Lease = faultLease{Lease: fc.Lease, err: func() error { return nil }, granted: granted}
	if err := strategy(t, fc, prefix, true).Release(ctx, l); err != nil {
		t.Fatalf("second Release: %v", err)
	}
	select {
	case hold := <-granted:
		if ttl := ttlOf(t, real, hold); ttl != -1 {
			t.Errorf("the hold's etcd lease of a Release that changed nothing is alive (TTL %ds)", ttl)
		}
	default:
		t.Fatal("the second Release granted no etcd lease for its hold")
	}
}
