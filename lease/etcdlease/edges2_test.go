package etcdlease_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/etcdlease"
)

// TestClaimOutsideRange: Claim of an ID outside 0..511 is ErrConfig naming
// the range.
func TestClaimOutsideRange(t *testing.T) {
	s := strategy(t, client(t), "x/", true)
	for _, id := range []int{-1, etcdlease.Capacity} {
		if _, err := s.Claim(ctxT(t), id, time.Minute); !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), "outside 0..511") {
			t.Errorf("Claim(%d) = %v, want ErrConfig naming 0..511", id, err)
		}
	}
}

// TestLongestDurations: etcd's largest TTL (9e9 s) is accepted as a lease
// duration and as Options.ReleaseHold; one second more is ErrConfig (the
// latter checked by TestOptions for durations).
func TestLongestDurations(t *testing.T) {
	c := client(t)
	prefix := namespace(t, c)
	longest := 9_000_000_000 * time.Second
	if _, err := etcdlease.New(c, etcdlease.Options{Prefix: prefix, ReleaseHold: longest}); err != nil {
		t.Errorf("New with ReleaseHold %v: %v", longest, err)
	}
	if _, err := etcdlease.New(c, etcdlease.Options{Prefix: prefix, ReleaseHold: longest + time.Second}); !errors.Is(err, driver.ErrConfig) {
		t.Errorf("New with ReleaseHold %v = %v, want ErrConfig", longest+time.Second, err)
	}
	s := strategy(t, c, prefix, true)
	l, err := s.Acquire(ctxT(t), longest)
	if err != nil {
		t.Fatalf("Acquire(%v): %v", longest, err)
	}
	if l.TTL != longest {
		t.Errorf("Acquire(%v) granted %v", longest, l.TTL)
	}
}

// lostTTLLease answers TimeToLive with etcd's "lease not found" error.
type lostTTLLease struct{ clientv3.Lease }

func (lostTTLLease) TimeToLive(context.Context, clientv3.LeaseID, ...clientv3.LeaseOption) (*clientv3.LeaseTimeToLiveResponse, error) {
	return nil, rpctypes.ErrLeaseNotFound
}

// TestListLeaseNotFound: a key whose etcd lease TimeToLive reports as not
// found (ended between the two reads) is not listed; a key on no etcd
// lease still is.
func TestListLeaseNotFound(t *testing.T) {
	real := client(t)
	prefix := namespace(t, real)
	ctx := ctxT(t)
	if _, err := strategy(t, real, prefix, true).Acquire(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := real.Put(ctx, prefix+"3", "foreign"); err != nil {
		t.Fatal(err)
	}
	fc := newClient(t, real.Endpoints()...)
	fc.Lease = lostTTLLease{fc.Lease}
	slots, err := strategy(t, fc, prefix, true).List(ctx)
	if err != nil || len(slots) != 1 || slots[0].MachineID != 3 {
		t.Errorf("List = %+v, %v; want only ID 3 (on no etcd lease)", slots, err)
	}
}
