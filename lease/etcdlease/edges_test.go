package etcdlease_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/etcdlease"
	"github.com/once-go/once/lease/internal/leasekit"
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

// TestReleaseTokenLengths: Release takes a token of 16 hex digits, a dot
// and a value of leasekit.TokenLen to leasekit.TokenLen+1+KeyLen+200
// bytes: it revokes the etcd lease such a token names (its key, missing
// here, is not the token's), and leaves alone the etcd lease of a token
// one byte shorter or longer, which is not one of this package's.
func TestReleaseTokenLengths(t *testing.T) {
	c := client(t)
	prefix := namespace(t, c)
	s := strategy(t, c, prefix, true)
	ctx := ctxT(t)
	maxValue := leasekit.TokenLen + 1 + leasekit.KeyLen + 200
	for _, tc := range []struct {
		n       int // bytes of value
		revoked bool
	}{{leasekit.TokenLen - 1, false}, {leasekit.TokenLen, true}, {maxValue, true}, {maxValue + 1, false}} {
		g, err := c.Grant(ctx, 60)
		if err != nil {
			t.Fatal(err)
		}
		tok := fmt.Sprintf("%016x.%s", uint64(g.ID), strings.Repeat("x", tc.n))
		if err := s.Release(ctx, driver.Lease{MachineID: 7, Token: tok}); err != nil {
			t.Fatalf("Release with a value of %d bytes: %v", tc.n, err)
		}
		if ttl := ttlOf(t, c, g.ID); (ttl == -1) != tc.revoked {
			t.Errorf("value of %d bytes: etcd lease TTL after Release %d, want revoked %v", tc.n, ttl, tc.revoked)
		}
		c.Revoke(ctx, g.ID)
	}
}
