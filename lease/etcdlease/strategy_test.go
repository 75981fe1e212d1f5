package etcdlease_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/etcdlease"
	"github.com/once-go/once/lease/internal/leasekit"
)

// TestKeyLayout: a lease is the key PREFIX<id> = token on an etcd lease of
// the requested TTL (rounded up to whole seconds), whose ID the token
// carries.
func TestKeyLayout(t *testing.T) {
	c := client(t)
	prefix := namespace(t, c)
	s := strategy(t, c, prefix, true)
	ctx := ctxT(t)
	l, err := s.Acquire(ctx, 90*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if l.MachineID != 0 || l.TTL != 90*time.Second || !l.PrevExpiry.IsZero() || !l.CoordinatorNow.IsZero() ||
		l.ReleaseHold != etcdlease.DefaultReleaseHold {
		t.Errorf("lease %+v", l)
	}
	val, lid, ok := keyOf(t, c, prefix, 0)
	if !ok || val != tokenPart(l.Token) || len(val) < 24 || val[22] != '|' || val[23:] != leasekit.Holder() {
		t.Fatalf("key %s0 = %q (exists %v), want the token of %q: 22 random characters, '|', host/pid", prefix, val, ok, l.Token)
	}
	if want := fmt.Sprintf("%016x.", uint64(lid)); !strings.HasPrefix(l.Token, want) {
		t.Errorf("token %q does not start with the key's etcd lease ID %s", l.Token, want)
	}
	if ttl := ttlOf(t, c, lid); ttl < 85 || ttl > 90 {
		t.Errorf("etcd lease TTL %ds, want about 90", ttl)
	}
	if s.Key(17) != prefix+"17" || s.Prefix() != prefix || s.Name() != "etcd" || s.Deterministic() {
		t.Errorf("Key %q, Prefix %q, Name %q", s.Key(17), s.Prefix(), s.Name())
	}

	// Whole seconds, rounded up; the next lowest ID.
	l2, err := s.Acquire(ctx, 2500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if l2.MachineID != 1 || l2.TTL != 3*time.Second {
		t.Errorf("second lease %+v, want ID 1 with TTL 3s", l2)
	}
	// Renewal reports the TTL etcd reports, and keeps the etcd lease.
	r, err := s.Renew(ctx, l, 90*time.Second)
	if err != nil || r.TTL != 90*time.Second || r.Token != l.Token || r.MachineID != 0 {
		t.Errorf("Renew = %+v, %v", r, err)
	}
	// Release keeps the key, without the token, for the release hold (see
	// TestReleaseHold), and revokes the holder's etcd lease.
	if err := s.Release(ctx, l); err != nil {
		t.Fatal(err)
	}
	if v, hold, ok := keyOf(t, c, prefix, 0); !ok || v != "released" || hold == lid || ttlOf(t, c, lid) != -1 {
		t.Errorf("after Release the key holds %q on %x (exists %v), the holder's etcd lease %x has TTL %d",
			v, hold, ok, lid, ttlOf(t, c, lid))
	}
	if err := s.Release(ctx, l); err != nil {
		t.Errorf("second Release: %v", err)
	}
}

// TestRenewLost: a renewal is lost when the etcd lease is gone, and also
// when the key is gone or holds another token while the etcd lease lives
// (a wiped prefix must not leave two holders of one ID).
func TestRenewLost(t *testing.T) {
	c := client(t)
	prefix := namespace(t, c)
	s := strategy(t, c, prefix, true)
	ctx := ctxT(t)
	for _, c2 := range []struct {
		name   string
		break_ func(l driver.Lease, lid clientv3.LeaseID) driver.Lease
	}{
		{"revoked", func(l driver.Lease, lid clientv3.LeaseID) driver.Lease {
			mustDo(t)(c.Revoke(ctx, lid))
			return l
		}},
		{"key deleted", func(l driver.Lease, lid clientv3.LeaseID) driver.Lease {
			mustDo(t)(c.Delete(ctx, s.Key(l.MachineID)))
			return l
		}},
		{"key overwritten", func(l driver.Lease, lid clientv3.LeaseID) driver.Lease {
			mustDo(t)(c.Put(ctx, s.Key(l.MachineID), "someone-elses-token-xxx", clientv3.WithLease(lid)))
			return l
		}},
		{"key without lease", func(l driver.Lease, lid clientv3.LeaseID) driver.Lease {
			mustDo(t)(c.Put(ctx, s.Key(l.MachineID), tokenPart(l.Token)))
			return l
		}},
		{"malformed token", func(l driver.Lease, lid clientv3.LeaseID) driver.Lease {
			l.Token = l.Token[:10]
			return l
		}},
		{"zero lease ID", func(l driver.Lease, lid clientv3.LeaseID) driver.Lease {
			l.Token = strings.Repeat("0", 16) + l.Token[16:]
			return l
		}},
	} {
		t.Run(c2.name, func(t *testing.T) {
			l, err := s.Acquire(ctx, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			_, lid, _ := keyOf(t, c, prefix, l.MachineID)
			bad := c2.break_(l, lid)
			if _, err := s.Renew(ctx, bad, time.Minute); !errors.Is(err, driver.ErrLost) || errors.Is(err, driver.ErrRetry) {
				t.Errorf("Renew: %v, want ErrLost", err)
			}
			if _, err := s.Reclaim(ctx, bad, time.Minute); !errors.Is(err, driver.ErrLost) {
				t.Errorf("Reclaim: %v, want ErrLost", err)
			}
			if err := s.Release(ctx, bad); err != nil {
				t.Errorf("Release of a lost lease: %v", err)
			}
			c.Revoke(ctx, lid)
			c.Delete(ctx, s.Key(l.MachineID))
		})
	}
}

func mustDo(t *testing.T) func(any, error) {
	return func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestRenewLonger: asking a renewal for more than the etcd lease's TTL
// moves the key to a new etcd lease of that TTL and revokes the old one;
// a replay of the renewal with the old lease finds the key on the new
// etcd lease and renews that.
func TestRenewLonger(t *testing.T) {
	c := client(t)
	prefix := namespace(t, c)
	s := strategy(t, c, prefix, true)
	ctx := ctxT(t)
	l, err := s.Acquire(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	_, old, _ := keyOf(t, c, prefix, l.MachineID)
	r, err := s.Renew(ctx, l, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	val, lid, ok := keyOf(t, c, prefix, l.MachineID)
	if !ok || val != tokenPart(l.Token) || lid == old || r.TTL != 2*time.Minute || !strings.HasPrefix(r.Token, fmt.Sprintf("%016x.", uint64(lid))) {
		t.Fatalf("after a longer renewal: key %q on %x (old %x), lease %+v", val, lid, old, r)
	}
	if ttlOf(t, c, old) != -1 {
		t.Error("old etcd lease not revoked")
	}
	if ttl := ttlOf(t, c, lid); ttl < 115 {
		t.Errorf("new etcd lease TTL %ds, want about 120", ttl)
	}
	// Replay with the lease from before the move.
	r2, err := s.Renew(ctx, l, 2*time.Minute)
	if err != nil || r2.Token != r.Token {
		t.Errorf("replayed Renew = %+v, %v; want the moved lease %q", r2, err, r.Token)
	}
	// A shorter request keeps the longer etcd lease, and reports it.
	r3, err := s.Renew(ctx, r, time.Minute)
	if err != nil || r3.TTL != 2*time.Minute || r3.Token != r.Token {
		t.Errorf("shorter Renew = %+v, %v", r3, err)
	}
}

// TestForeignKeys: keys under the prefix that are not canonical machine
// IDs do not count, and an existing key, whatever it holds, is never
// taken.
func TestForeignKeys(t *testing.T) {
	c := client(t)
	prefix := namespace(t, c)
	ctx := ctxT(t)
	for _, k := range []string{"07", "512", "abc", "1/x", "-1", "+2", "0 "} {
		mustDo(t)(c.Put(ctx, prefix+k, "foreign"))
	}
	mustDo(t)(c.Put(ctx, prefix+"0", "foreign, no lease"))
	s := strategy(t, c, prefix, true)
	for want := 1; want <= 3; want++ {
		l, err := s.Acquire(ctx, time.Minute)
		if err != nil || l.MachineID != want {
			t.Fatalf("Acquire = %d, %v; want machine ID %d", l.MachineID, err, want)
		}
	}
	if v, _, _ := keyOf(t, c, prefix, 0); v != "foreign, no lease" {
		t.Errorf("foreign key 0 now %q", v)
	}
}

func TestOptions(t *testing.T) {
	c := client(t)
	for _, o := range []etcdlease.Options{
		{Prefix: "leases1"}, {Prefix: "a b/"}, {Prefix: "caf\xc3\xa9/"}, {Prefix: strings.Repeat("x", 201)}, {Candidates: -1},
	} {
		if _, err := etcdlease.New(c, o); !errors.Is(err, driver.ErrConfig) {
			t.Errorf("New(%+v) = %v, want ErrConfig", o, err)
		}
	}
	if _, err := etcdlease.New(nil, etcdlease.Options{}); !errors.Is(err, driver.ErrConfig) {
		t.Errorf("New(nil) = %v", err)
	}
	s, err := etcdlease.New(c, etcdlease.Options{})
	if err != nil || s.Prefix() != etcdlease.DefaultPrefix || s.Key(17) != "once_leases/17" {
		t.Fatalf("defaults: %v %q", err, s.Prefix())
	}
	ctx := ctxT(t)
	for _, d := range []time.Duration{0, -time.Second, 9_000_000_001 * time.Second} {
		if _, err := s.Acquire(ctx, d); !errors.Is(err, driver.ErrConfig) {
			t.Errorf("Acquire(%v) = %v, want ErrConfig", d, err)
		}
		if _, err := s.Renew(ctx, driver.Lease{}, d); !errors.Is(err, driver.ErrConfig) {
			t.Errorf("Renew(%v) = %v, want ErrConfig", d, err)
		}
	}
	if err := s.Check(ctx); err != nil {
		t.Errorf("Check: %v", err)
	}
}

// TestContention600: 600 contenders, each its own strategy on one of 8
// clients (as separate processes would be), race for 512 IDs under one
// prefix: exactly 512 win, no ID is won twice, the other 88 see
// ErrExhausted. Contenders retry ErrConflict as the manager would; the
// leases of the losers' attempts are all revoked.
func TestContention600(t *testing.T) {
	eps := client(t).Endpoints()
	clients := make([]*clientv3.Client, 8)
	for i := range clients {
		clients[i] = newClient(t, eps...)
	}
	prefix := namespace(t, clients[0])
	ctx := ctxT(t)
	const contenders = 600
	var (
		mu        sync.Mutex
		won       = map[int]string{}
		exhausted int
		conflicts int
		wg        sync.WaitGroup
		start     = make(chan struct{})
	)
	for i := range contenders {
		s := strategy(t, clients[i%len(clients)], prefix, false)
		wg.Go(func() {
			<-start
			for {
				l, err := s.Acquire(ctx, time.Minute)
				mu.Lock()
				switch {
				case err == nil:
					if prev, dup := won[l.MachineID]; dup {
						t.Errorf("ID %d won twice (tokens %q and %q)", l.MachineID, prev, l.Token)
					}
					won[l.MachineID] = l.Token
				case errors.Is(err, driver.ErrExhausted):
					exhausted++
				case errors.Is(err, driver.ErrConflict) || errors.Is(err, driver.ErrRetry):
					conflicts++
					mu.Unlock()
					continue
				default:
					t.Errorf("Acquire: %v", err)
				}
				mu.Unlock()
				return
			}
		})
	}
	close(start)
	wg.Wait()
	if len(won) != etcdlease.Capacity || exhausted != contenders-etcdlease.Capacity {
		t.Fatalf("%d winners, %d exhausted; want %d and %d", len(won), exhausted, etcdlease.Capacity, contenders-etcdlease.Capacity)
	}
	t.Logf("%d winners, %d exhausted, %d conflicts retried", len(won), exhausted, conflicts)
	// etcd agrees: every key holds its winner's token on its etcd lease.
	r, err := clients[0].Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Kvs) != etcdlease.Capacity {
		t.Fatalf("%d keys under the prefix, want %d", len(r.Kvs), etcdlease.Capacity)
	}
	for _, kv := range r.Kvs {
		id, _ := strconv.Atoi(strings.TrimPrefix(string(kv.Key), prefix))
		tok := won[id]
		if string(kv.Value) != tokenPart(tok) || !strings.HasPrefix(tok, fmt.Sprintf("%016x.", kv.Lease)) {
			t.Fatalf("key %s = %q on %x; winner's token %q", kv.Key, kv.Value, kv.Lease, tok)
		}
	}
}

// TestAbandonedAcquire: an Acquire whose context ends mid-way leaves no
// lease behind but the one it returns: once that is released, no key
// holds a token.
func TestAbandonedAcquire(t *testing.T) {
	c := client(t)
	prefix := namespace(t, c)
	s := strategy(t, c, prefix, true)
	returned := 0
	for i := range 50 {
		ctx, cancel := context.WithTimeout(t.Context(), time.Duration(i)*200*time.Microsecond)
		l, err := s.Acquire(ctx, time.Minute)
		cancel()
		if err != nil && !errors.Is(err, driver.ErrRetry) {
			t.Fatalf("abandoned Acquire: %v, want ErrRetry", err)
		}
		if l.Token != "" {
			returned++
			if err := s.Release(ctxT(t), l); err != nil {
				t.Fatal(err)
			}
		}
		r, err := c.Get(ctxT(t), prefix, clientv3.WithPrefix())
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range r.Kvs {
			if string(kv.Value) != "released" {
				t.Fatalf("after an Acquire abandoned at %v (and the release of what it returned) key %s holds a token",
					time.Duration(i)*200*time.Microsecond, kv.Key)
			}
		}
	}
	t.Logf("%d of 50 calls returned a lease", returned)
}
