package etcdlease_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/etcdlease"
)

// lostReplyKV applies every transaction and then reports it failed, as a
// connection reset after the server applied the request would: the
// outcome is unknown to the caller, but the write happened.
type lostReplyKV struct{ clientv3.KV }

func (k lostReplyKV) Txn(ctx context.Context) clientv3.Txn { return lostReplyTxn{k.KV.Txn(ctx)} }

type lostReplyTxn struct{ clientv3.Txn }

func (t lostReplyTxn) If(c ...clientv3.Cmp) clientv3.Txn  { return lostReplyTxn{t.Txn.If(c...)} }
func (t lostReplyTxn) Then(o ...clientv3.Op) clientv3.Txn { return lostReplyTxn{t.Txn.Then(o...)} }
func (t lostReplyTxn) Else(o ...clientv3.Op) clientv3.Txn { return lostReplyTxn{t.Txn.Else(o...)} }
func (t lostReplyTxn) Commit() (*clientv3.TxnResponse, error) {
	if _, err := t.Txn.Commit(); err != nil {
		return nil, err
	}
	return nil, status.Error(codes.Unavailable, "connection reset after the server applied the request")
}

// lostReplyStrategy is a strategy on prefix whose transactions are applied
// but answered with an error.
func lostReplyStrategy(t *testing.T, real *clientv3.Client, prefix string) *etcdlease.Strategy {
	t.Helper()
	fc := newClient(t, real.Endpoints()...)
	fc.KV = lostReplyKV{fc.KV}
	return strategy(t, fc, prefix, true)
}

// TestAcquireUnknownOutcome: a claim that was applied but whose reply was
// lost is returned beside ErrRetry; it is the lease that holds the key,
// and releasing it lets nobody renew it again.
func TestAcquireUnknownOutcome(t *testing.T) {
	real := client(t)
	prefix := namespace(t, real)
	ctx := ctxT(t)
	l, err := lostReplyStrategy(t, real, prefix).Acquire(ctx, time.Minute)
	if !errors.Is(err, driver.ErrRetry) {
		t.Fatalf("Acquire with the claim's reply lost: %v, want ErrRetry", err)
	}
	val, _, ok := keyOf(t, real, prefix, l.MachineID)
	if l.Token == "" || !ok || val != tokenPart(l.Token) {
		t.Fatalf("Acquire returned %+v beside ErrRetry; key %d holds %q (exists %v): want the claim that holds it", l, l.MachineID, val, ok)
	}
	s := strategy(t, real, prefix, true)
	if err := s.Release(ctx, l); err != nil {
		t.Fatalf("Release of the returned claim: %v", err)
	}
	if _, err := s.Renew(ctx, l, time.Minute); !errors.Is(err, driver.ErrLost) {
		t.Errorf("Renew of the released claim: %v, want ErrLost", err)
	}
}

// TestReclaim: a reclaim moves the key to a new etcd lease with a new
// token in one transaction: the old token then renews, reclaims and
// releases nothing, the old etcd lease is revoked, and of two reclaims
// of one record exactly one wins.
func TestReclaim(t *testing.T) {
	c := client(t)
	prefix := namespace(t, c)
	s := strategy(t, c, prefix, true)
	ctx := ctxT(t)
	g, err := s.Acquire(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	_, oldLID, _ := keyOf(t, c, prefix, g.MachineID)
	record := driver.Lease{MachineID: g.MachineID, Token: g.Token}

	// A restarted process and a copy of its state file reclaim at once.
	var (
		wg      sync.WaitGroup
		results [2]driver.Lease
		errs    [2]error
	)
	for i := range 2 {
		other := strategy(t, newClient(t, c.Endpoints()...), prefix, true)
		wg.Go(func() { results[i], errs[i] = other.Reclaim(ctx, record, time.Minute) })
	}
	wg.Wait()
	var won driver.Lease
	wins := 0
	for i, err := range errs {
		switch {
		case err == nil:
			wins++
			won = results[i]
		case !errors.Is(err, driver.ErrLost):
			t.Errorf("reclaim %d: %v, want success or ErrLost", i, err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d of 2 reclaims of one record won, want 1 (%v)", wins, errs)
	}
	val, lid, ok := keyOf(t, c, prefix, g.MachineID)
	switch {
	case won.MachineID != g.MachineID || won.Token == g.Token || tokenPart(won.Token) == tokenPart(g.Token):
		t.Fatalf("reclaimed lease %+v kept the token of %+v", won, g)
	case !ok || val != tokenPart(won.Token) || lid == oldLID || !strings.HasPrefix(won.Token, fmt.Sprintf("%016x.", uint64(lid))):
		t.Fatalf("key holds %q on %x after the reclaim (old lease %x); reclaimed lease %q", val, lid, oldLID, won.Token)
	case won.TTL != time.Minute || won.ReleaseHold != etcdlease.DefaultReleaseHold:
		t.Errorf("reclaimed lease TTL %v, ReleaseHold %v", won.TTL, won.ReleaseHold)
	}
	if ttlOf(t, c, oldLID) != -1 {
		t.Error("the etcd lease of the replaced token is still alive")
	}
	if _, err := s.Renew(ctx, g, time.Minute); !errors.Is(err, driver.ErrLost) {
		t.Errorf("Renew with the replaced token: %v, want ErrLost", err)
	}
	if err := s.Release(ctx, g); err != nil {
		t.Errorf("Release with the replaced token: %v", err)
	}
	if v, _, _ := keyOf(t, c, prefix, g.MachineID); v != tokenPart(won.Token) {
		t.Fatalf("a Release with the replaced token changed the key to %q", v)
	}
	if _, err := s.Renew(ctx, won, time.Minute); err != nil {
		t.Errorf("Renew of the reclaimed lease: %v", err)
	}
}

// TestReclaimUnknownOutcome: a reclaim that was applied but whose reply
// was lost returns the lease with the new token beside ErrRetry: the old
// token is lost, the returned lease holds the key and can be released.
func TestReclaimUnknownOutcome(t *testing.T) {
	real := client(t)
	prefix := namespace(t, real)
	s := strategy(t, real, prefix, true)
	ctx := ctxT(t)
	g, err := s.Acquire(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	record := driver.Lease{MachineID: g.MachineID, Token: g.Token}
	l, err := lostReplyStrategy(t, real, prefix).Reclaim(ctx, record, time.Minute)
	if !errors.Is(err, driver.ErrRetry) {
		t.Fatalf("Reclaim with the reply lost: %v, want ErrRetry", err)
	}
	val, _, _ := keyOf(t, real, prefix, g.MachineID)
	if l.MachineID != g.MachineID || l.Token == "" || l.Token == g.Token || val != tokenPart(l.Token) {
		t.Fatalf("Reclaim returned %+v beside ErrRetry; the key holds %q: want the new-token lease that holds it", l, val)
	}
	if _, err := s.Renew(ctx, g, time.Minute); !errors.Is(err, driver.ErrLost) {
		t.Errorf("Renew with the replaced token: %v, want ErrLost", err)
	}
	if _, err := s.Reclaim(ctx, record, time.Minute); !errors.Is(err, driver.ErrLost) {
		t.Errorf("second Reclaim of the record: %v, want ErrLost", err)
	}
	if err := s.Release(ctx, l); err != nil {
		t.Fatalf("Release of the returned lease: %v", err)
	}
	if v, _, _ := keyOf(t, real, prefix, g.MachineID); v != "released" {
		t.Errorf("after releasing the returned lease the key holds %q", v)
	}
}

// TestReleaseHold: Release keeps the ID taken for ReleaseHold, on a fresh
// etcd lease, with a value that no token matches; the holder's etcd lease
// is revoked, a renewal or reclaim of the released lease is lost, and a
// second release changes nothing. A negative ReleaseHold deletes the key
// at once. Every lease reports the hold.
func TestReleaseHold(t *testing.T) {
	c := client(t)
	for _, tc := range []struct {
		hold, want time.Duration
	}{{0, 3 * time.Second}, {1500 * time.Millisecond, 2 * time.Second}, {5 * time.Second, 5 * time.Second}, {-1, 0}} {
		t.Run(fmt.Sprint(tc.hold), func(t *testing.T) {
			prefix := namespace(t, c)
			s, err := etcdlease.New(c, etcdlease.Options{Prefix: prefix, LowestFirst: true, ReleaseHold: tc.hold})
			if err != nil {
				t.Fatal(err)
			}
			ctx := ctxT(t)
			l, err := s.Acquire(ctx, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Renew(ctx, l, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if l.ReleaseHold != tc.want || r.ReleaseHold != tc.want {
				t.Errorf("ReleaseHold reported %v (Acquire), %v (Renew); want %v", l.ReleaseHold, r.ReleaseHold, tc.want)
			}
			_, lid, _ := keyOf(t, c, prefix, l.MachineID)
			if err := s.Release(ctx, r); err != nil {
				t.Fatal(err)
			}
			if ttlOf(t, c, lid) != -1 {
				t.Error("the holder's etcd lease is still alive after Release")
			}
			val, hold, ok := keyOf(t, c, prefix, l.MachineID)
			switch {
			case tc.want == 0:
				if ok {
					t.Fatalf("Release without a hold left the key (%q)", val)
				}
			case !ok || val != "released" || hold == 0 || hold == lid:
				t.Fatalf("after Release the key holds %q on %x (exists %v); want \"released\" on a new etcd lease", val, hold, ok)
			default:
				if ttl := ttlOf(t, c, hold); ttl < int64(tc.want/time.Second)-1 || ttl > int64(tc.want/time.Second) {
					t.Errorf("hold's etcd lease has %ds left, want about %v", ttl, tc.want)
				}
				next, err := s.Acquire(ctx, time.Minute)
				if err != nil || next.MachineID == l.MachineID {
					t.Errorf("Acquire during the hold: machine ID %d, %v; want another ID than %d", next.MachineID, err, l.MachineID)
				}
			}
			if _, err := s.Renew(ctx, r, time.Minute); !errors.Is(err, driver.ErrLost) {
				t.Errorf("Renew of a released lease: %v, want ErrLost", err)
			}
			if _, err := s.Reclaim(ctx, r, time.Minute); !errors.Is(err, driver.ErrLost) {
				t.Errorf("Reclaim of a released lease: %v, want ErrLost", err)
			}
			if err := s.Release(ctx, r); err != nil {
				t.Errorf("second Release: %v", err)
			}
			if v, h, _ := keyOf(t, c, prefix, l.MachineID); v != val || h != hold {
				t.Errorf("second Release changed the key to %q on %x (was %q on %x)", v, h, val, hold)
			}
		})
	}
}

// TestReleaseMovedKey: a lease whose key a renewal moved to a longer
// etcd lease (the reply lost, so the holder still has the old etcd lease
// ID) is released by its token: the key goes on hold (or, with a negative
// ReleaseHold, is deleted) and both etcd leases are revoked.
func TestReleaseMovedKey(t *testing.T) {
	c := client(t)
	for _, hold := range []time.Duration{0, -1} {
		t.Run(fmt.Sprint(hold), func(t *testing.T) {
			prefix := namespace(t, c)
			s, err := etcdlease.New(c, etcdlease.Options{Prefix: prefix, LowestFirst: true, ReleaseHold: hold})
			if err != nil {
				t.Fatal(err)
			}
			ctx := ctxT(t)
			l, err := s.Acquire(ctx, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			_, old, _ := keyOf(t, c, prefix, l.MachineID)
			if _, err := s.Renew(ctx, l, 2*time.Minute); err != nil {
				t.Fatal(err)
			}
			_, moved, _ := keyOf(t, c, prefix, l.MachineID)
			if err := s.Release(ctx, l); err != nil {
				t.Fatal(err)
			}
			v, _, ok := keyOf(t, c, prefix, l.MachineID)
			if hold < 0 && ok {
				t.Errorf("key holds %q after releasing the lease from before the move, want it deleted", v)
			}
			if hold == 0 && v != "released" {
				t.Errorf("key holds %q after releasing the lease from before the move", v)
			}
			if ttlOf(t, c, old) != -1 || ttlOf(t, c, moved) != -1 {
				t.Error("an etcd lease of the released key is still alive")
			}
		})
	}
}

// cancelingKV cancels a context after its n-th transaction has committed.
type cancelingKV struct {
	clientv3.KV
	n      *int
	cancel context.CancelFunc
}

func (k cancelingKV) Txn(ctx context.Context) clientv3.Txn {
	return cancelingTxn{k.KV.Txn(ctx), k}
}

type cancelingTxn struct {
	clientv3.Txn
	k cancelingKV
}

func (t cancelingTxn) If(c ...clientv3.Cmp) clientv3.Txn  { return cancelingTxn{t.Txn.If(c...), t.k} }
func (t cancelingTxn) Then(o ...clientv3.Op) clientv3.Txn { return cancelingTxn{t.Txn.Then(o...), t.k} }
func (t cancelingTxn) Commit() (*clientv3.TxnResponse, error) {
	r, err := t.Txn.Commit()
	if *t.k.n--; *t.k.n == 0 {
		t.k.cancel()
	}
	return r, err
}

// revokeCtxLease records whether each Revoke's context had ended when it
// was called.
type revokeCtxLease struct {
	clientv3.Lease
	mu    *sync.Mutex
	ended *[]bool
}

func (l revokeCtxLease) Revoke(ctx context.Context, id clientv3.LeaseID) (*clientv3.LeaseRevokeResponse, error) {
	l.mu.Lock()
	*l.ended = append(*l.ended, ctx.Err() != nil)
	l.mu.Unlock()
	return l.Lease.Revoke(ctx, id)
}

// TestNothingOutlivesTheContext: when the caller's context ends during an
// Acquire that then revokes the etcd lease it granted (every candidate
// was taken), the revocation runs under that context, not detached from
// it: no request of the strategy outlives the call's context.
func TestNothingOutlivesTheContext(t *testing.T) {
	real := client(t)
	prefix := namespace(t, real)
	other := strategy(t, real, prefix, true)
	for range 2 {
		if _, err := other.Acquire(ctxT(t), time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	fc := newClient(t, real.Endpoints()...)
	n := 2 // both claims fail; the context ends after the second
	var (
		mu    sync.Mutex
		ended []bool
	)
	fc.KV = cancelingKV{KV: hidingKV{KV: fc.KV, hide: true}, n: &n, cancel: cancel}
	fc.Lease = revokeCtxLease{Lease: fc.Lease, mu: &mu, ended: &ended}
	s, err := etcdlease.New(fc, etcdlease.Options{Prefix: prefix, LowestFirst: true, Candidates: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Acquire(ctx, time.Minute); !errors.Is(err, driver.ErrConflict) {
		t.Fatalf("Acquire: %v, want ErrConflict", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ended) != 1 || !ended[0] {
		t.Errorf("revocations after the caller's context ended ran with an ended context: %v; want [true]", ended)
	}
}
