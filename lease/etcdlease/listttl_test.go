package etcdlease_test

import (
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestListLastSecond: a key whose etcd lease has less than a second left
// (TimeToLive says 0) is still held, and List reports it with TTL 0 until
// the etcd lease ends.
func TestListLastSecond(t *testing.T) {
	c := client(t)
	prefix := namespace(t, c)
	ctx := ctxT(t)
	s := strategy(t, c, prefix, true)
	g, err := c.Grant(ctx, 1) // etcd may raise it to its minimum TTL
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(ctx, prefix+"5", "x", clientv3.WithLease(g.ID)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Duration(g.TTL+5) * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		slots, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(slots) == 0 {
			t.Fatal("the key left the list without ever being listed with TTL 0")
		}
		if slots[0].MachineID != 5 {
			t.Fatalf("List = %+v, want ID 5", slots)
		}
		if slots[0].TTL == 0 {
			return
		}
	}
	t.Fatal("the key was listed until the deadline and never with TTL 0")
}
