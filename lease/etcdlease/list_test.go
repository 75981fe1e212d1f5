package etcdlease_test

import (
	"strconv"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/etcdlease"
	"github.com/once-go/once/lease/internal/leasekit"
)

// TestList: List reports every held ID ascending (numerically, though
// etcd orders keys as bytes), with the TTL of its etcd lease, the holder
// each strategy recorded (Options.Holder, or host/pid) and a token that
// releases exactly that lease. A released key (within its hold) is listed
// with no holder; foreign keys under the prefix are not IDs.
func TestList(t *testing.T) {
	c := client(t)
	prefix := namespace(t, c)
	ctx := ctxT(t)
	s := strategy(t, c, prefix, true)
	if slots, err := s.List(ctx); err != nil || len(slots) != 0 {
		t.Fatalf("List of an empty prefix = %v, %v", slots, err)
	}
	if _, err := c.Put(ctx, prefix+"07", "x"); err != nil { // not a canonical ID
		t.Fatal(err)
	}
	var held []driver.Lease
	for _, x := range []struct {
		id     int
		holder string
		d      time.Duration
	}{{100, "web-1/17", time.Minute}, {2, "", 3 * time.Minute}, {11, "pod \x01weird/9", 4 * time.Minute}, {20, "gone/1", time.Minute}} {
		o := etcdlease.Options{Prefix: prefix, Holder: x.holder}
		sx, err := etcdlease.New(c, o)
		if err != nil {
			t.Fatal(err)
		}
		l, err := sx.Claim(ctx, x.id, x.d)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, l)
	}
	if err := s.Release(ctx, held[3]); err != nil { // ID 20: released, on its 3s hold
		t.Fatal(err)
	}
	slots, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id     int
		holder string
		token  string
		ttl    time.Duration
	}{
		{2, leasekit.Holder(), held[1].Token, 3 * time.Minute},
		{11, "pod ?weird/9", held[2].Token, 4 * time.Minute},
		{20, "", "", etcdlease.DefaultReleaseHold},
		{100, "web-1/17", held[0].Token, time.Minute},
	}
	if len(slots) != len(want) {
		t.Fatalf("List = %+v, want IDs 2, 11, 20, 100", slots)
	}
	for i, w := range want {
		g := slots[i]
		if g.MachineID != w.id || g.Holder != w.holder || (w.token != "" && g.Token != w.token) || g.TTL < w.ttl-5*time.Second || g.TTL > w.ttl {
			t.Errorf("slot %d = %+v; want ID %d, holder %q, token %q, TTL about %v", i, g, w.id, w.holder, w.token, w.ttl)
		}
	}
	// The listed token releases that lease; releasing the listed released
	// key does nothing; a stale token nothing.
	for _, i := range []int{0, 2} {
		if err := s.Release(ctx, driver.Lease{MachineID: slots[i].MachineID, Token: slots[i].Token}); err != nil {
			t.Fatal(err)
		}
	}
	if v, _, _ := keyOf(t, c, prefix, 2); v != "released" {
		t.Fatalf("ID 2 after releasing its listed token holds %q, want released", v)
	}
	if v, _, _ := keyOf(t, c, prefix, 20); v != "released" {
		t.Fatalf("ID 20 = %q, want still released", v)
	}
	if err := s.Release(ctx, driver.Lease{MachineID: 100, Token: held[1].Token}); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := keyOf(t, c, prefix, 100); v != tokenPart(held[0].Token) {
		t.Fatalf("ID 100 after a stale release holds %q", v)
	}
	// An etcd lease that ends between the range read and TimeToLive: its
	// key is free, not listed. A key on no etcd lease is listed with TTL 0.
	lid := clientv3.LeaseID(0)
	if _, l, ok := keyOf(t, c, prefix, 11); ok {
		lid = l
	}
	if _, err := c.Revoke(ctx, lid); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(ctx, prefix+strconv.Itoa(300), "foreign"); err != nil {
		t.Fatal(err)
	}
	slots, err = s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids := []int{}
	for _, g := range slots {
		ids = append(ids, g.MachineID)
		if g.MachineID == 300 && (g.TTL != 0 || g.Holder != "") {
			t.Errorf("key without an etcd lease listed as %+v", g)
		}
	}
	if len(ids) != 4 || ids[0] != 2 || ids[1] != 20 || ids[2] != 100 || ids[3] != 300 {
		t.Fatalf("List after the revoke = IDs %v, want 2, 20, 100, 300", ids)
	}
}
