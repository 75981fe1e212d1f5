package etcdlease_test

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// lastSecondLease answers TimeToLive as etcd does in an etcd lease's last
// second: a TTL of 0 (whole seconds, rounded down).
type lastSecondLease struct{ clientv3.Lease }

func (l lastSecondLease) TimeToLive(ctx context.Context, id clientv3.LeaseID, opts ...clientv3.LeaseOption) (*clientv3.LeaseTimeToLiveResponse, error) {
	r, err := l.Lease.TimeToLive(ctx, id, opts...)
	if err == nil {
		r.TTL = 0
	}
	return r, err
}

// TestListLastSecond: a key whose etcd lease has less than a second left
// (TimeToLive says 0) is still held: List reports it, with TTL 0.
func TestListLastSecond(t *testing.T) {
	real := client(t)
	prefix := namespace(t, real)
	ctx := ctxT(t)
	if _, err := strategy(t, real, prefix, true).Acquire(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	fc := newClient(t, real.Endpoints()...)
	fc.Lease = lastSecondLease{fc.Lease}
	slots, err := strategy(t, fc, prefix, true).List(ctx)
	if err != nil || len(slots) != 1 || slots[0].MachineID != 0 || slots[0].TTL != 0 {
		t.Errorf("List = %+v, %v; want ID 0 with TTL 0", slots, err)
	}
}
