package redislease_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
)

// held reports whether the server still has data for machine ID id.
func held(t *testing.T, c *redis.Client, mode redislease.Mode, name string, id int) bool {
	t.Helper()
	ctx := ctxT(t)
	var n int64
	var err error
	if mode == redislease.ModeHash {
		var ok bool
		ok, err = c.HExists(ctx, name, strconv.Itoa(id)).Result()
		if ok {
			n = 1
		}
	} else {
		n, err = c.Exists(ctx, idKey(name, id)).Result()
	}
	if err != nil {
		t.Fatalf("inspect ID %d: %v", id, err)
	}
	return n == 1
}

// waitExpired polls the server until ID id's lease is gone.
func waitExpired(t *testing.T, c *redis.Client, mode redislease.Mode, name string, id int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for held(t, c, mode, name, id) {
		if time.Now().After(deadline) {
			t.Fatalf("ID %d still held 10 s after its TTL", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAcquireRenewRelease walks a lease through its life on a strategy
// whose Release deletes at once (a negative ReleaseHold; release_test.go
// covers the default hold).
func TestAcquireRenewRelease(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		s := strategyOpts(t, c, redislease.Options{Mode: tg.mode, Name: name, LowestFirst: true, ReleaseHold: noHold})
		ctx := ctxT(t)

		l, err := s.Acquire(ctx, 2*time.Second)
		if err != nil {
			t.Fatalf("Acquire: %v", err)
		}
		if l.MachineID != 0 || len(l.Token) <= 23 || l.TTL != 2*time.Second {
			t.Fatalf("Acquire = ID %d, token of %d bytes, TTL %v; want ID 0 (lowest), a token and holder, 2s", l.MachineID, len(l.Token), l.TTL)
		}
		if d := time.Since(l.CoordinatorNow); l.CoordinatorNow.IsZero() || d > time.Minute || d < -time.Minute {
			t.Errorf("CoordinatorNow = %v, want the server's clock", l.CoordinatorNow)
		}
		if !l.PrevExpiry.IsZero() {
			t.Errorf("PrevExpiry = %v, want zero (unknown)", l.PrevExpiry)
		}
		if l.ReleaseHold != 0 {
			t.Errorf("ReleaseHold = %v, want 0 (Release deletes at once)", l.ReleaseHold)
		}

		// Renew extends: the server TTL now exceeds the original 2 s.
		r, err := s.Renew(ctx, l, time.Minute)
		if err != nil {
			t.Fatalf("Renew: %v", err)
		}
		if r.MachineID != l.MachineID || r.Token != l.Token || r.TTL != time.Minute {
			t.Fatalf("Renew = %+v, want same ID and token, TTL 1m", r)
		}
		if p := pttl(t, c, tg.mode, name, 0); p <= 2000 || p > 60000 {
			t.Fatalf("PTTL after renew = %d ms, want in (2000, 60000]", p)
		}

		// Idempotent replay: the same renewal again succeeds.
		for range 3 {
			if _, err := s.Renew(ctx, l, time.Minute); err != nil {
				t.Fatalf("replayed Renew: %v", err)
			}
		}

		// A second contender gets another ID.
		l2, err := s.Acquire(ctx, time.Minute)
		if err != nil || l2.MachineID != 1 {
			t.Fatalf("second Acquire = ID %d, %v; want ID 1", l2.MachineID, err)
		}

		if err := s.Release(ctx, l); err != nil {
			t.Fatalf("Release: %v", err)
		}
		if held(t, c, tg.mode, name, 0) {
			t.Fatal("ID 0 still held after Release")
		}
		if !held(t, c, tg.mode, name, 1) {
			t.Fatal("Release of ID 0 touched ID 1")
		}
		if _, err := s.Renew(ctx, l, time.Minute); !errors.Is(err, driver.ErrLost) {
			t.Fatalf("Renew after Release = %v, want ErrLost", err)
		}
		// Released ID is reused.
		l3, err := s.Acquire(ctx, time.Minute)
		if err != nil || l3.MachineID != 0 {
			t.Fatalf("Acquire after Release = ID %d, %v; want ID 0", l3.MachineID, err)
		}
		if l3.Token == l.Token {
			t.Fatal("new lease reused the old token")
		}
	})
}

func TestTakeover(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		a := strategy(t, c, tg.mode, name, true)
		b := strategy(t, c, tg.mode, name, true)
		ctx := ctxT(t)

		la, err := a.Acquire(ctx, 50*time.Millisecond)
		if err != nil {
			t.Fatalf("Acquire A: %v", err)
		}
		waitExpired(t, c, tg.mode, name, la.MachineID)
		lb, err := b.Acquire(ctx, time.Minute)
		if err != nil || lb.MachineID != la.MachineID {
			t.Fatalf("Acquire B = ID %d, %v; want the expired ID %d", lb.MachineID, err, la.MachineID)
		}

		// The old holder's renewal is lost and does not touch B.
		if _, err := a.Renew(ctx, la, time.Minute); !errors.Is(err, driver.ErrLost) {
			t.Fatalf("Renew by A after takeover = %v, want ErrLost", err)
		}
		// Stale release is harmless.
		if err := a.Release(ctx, la); err != nil {
			t.Fatalf("stale Release: %v", err)
		}
		if got := value(t, c, tg.mode, name, lb.MachineID); got != lb.Token {
			t.Fatalf("after A's renew+release the ID holds token %q, want B's", got)
		}
		if _, err := b.Renew(ctx, lb, time.Minute); err != nil {
			t.Fatalf("Renew by B: %v", err)
		}
		if tg.mode == redislease.ModeHash {
			// HGETALL skips logically expired fields (HLEN may count them
			// on Valkey until they are reclaimed).
			all := c.HGetAll(ctx, name).Val()
			id := strconv.Itoa(lb.MachineID)
			if len(all) != 2 || all["token."+id+"."+lb.Token] != id {
				t.Fatalf("hash after takeover = %q, want exactly B's two fields", all)
			}
		}
	})
}

func TestRenewAfterExpiryIsLost(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		s := strategy(t, c, tg.mode, name, false)
		ctx := ctxT(t)
		l, err := s.Acquire(ctx, 30*time.Millisecond)
		if err != nil {
			t.Fatalf("Acquire: %v", err)
		}
		waitExpired(t, c, tg.mode, name, l.MachineID)
		if _, err := s.Renew(ctx, l, time.Minute); !errors.Is(err, driver.ErrLost) {
			t.Fatalf("Renew after expiry = %v, want ErrLost", err)
		}
		if held(t, c, tg.mode, name, l.MachineID) {
			t.Fatal("a lost renewal recreated the lease")
		}
	})
}

func TestExhaustion(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		s := strategyOpts(t, c, redislease.Options{Mode: tg.mode, Name: name, LowestFirst: true, ReleaseHold: noHold})
		ctx := ctxT(t)
		leases := make([]driver.Lease, redislease.Capacity)
		for i := range leases {
			l, err := s.Acquire(ctx, time.Minute)
			if err != nil {
				t.Fatalf("Acquire #%d: %v", i, err)
			}
			if l.MachineID != i {
				t.Fatalf("Acquire #%d = ID %d, want %d (lowest first)", i, l.MachineID, i)
			}
			leases[i] = l
		}
		if _, err := s.Acquire(ctx, time.Minute); !errors.Is(err, driver.ErrExhausted) {
			t.Fatalf("Acquire #513 = %v, want ErrExhausted", err)
		}
		if err := s.Release(ctx, leases[317]); err != nil {
			t.Fatalf("Release: %v", err)
		}
		// Random picking (the default) finds the only free ID.
		r := strategy(t, c, tg.mode, name, false)
		l, err := r.Acquire(ctx, time.Minute)
		if err != nil || l.MachineID != 317 {
			t.Fatalf("Acquire after Release = ID %d, %v; want 317", l.MachineID, err)
		}
		if _, err := r.Acquire(ctx, time.Minute); !errors.Is(err, driver.ErrExhausted) {
			t.Fatalf("Acquire when full again = %v, want ErrExhausted", err)
		}
	})
}

func TestReleaseWrongTokenHarmless(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		s := strategy(t, c, tg.mode, name, true)
		ctx := ctxT(t)
		l, err := s.Acquire(ctx, time.Minute)
		if err != nil {
			t.Fatalf("Acquire: %v", err)
		}
		forged := l
		forged.Token = "AAAAAAAAAAAAAAAAAAAAAA"
		if err := s.Release(ctx, forged); err != nil {
			t.Fatalf("Release with a foreign token: %v", err)
		}
		// Not shortened either (Release shortens its own lease to the hold).
		if p := pttl(t, c, tg.mode, name, l.MachineID); p <= 30000 {
			t.Fatalf("holder's lease has %d ms left after a forged release, want about a minute", p)
		}
		if _, err := s.Renew(ctx, forged, time.Minute); !errors.Is(err, driver.ErrLost) {
			t.Fatalf("Renew with a foreign token = %v, want ErrLost", err)
		}
		if _, err := s.Renew(ctx, l, time.Minute); err != nil {
			t.Fatalf("holder's Renew after a forged release: %v", err)
		}
		for _, bad := range []driver.Lease{{MachineID: -1, Token: l.Token}, {MachineID: 512, Token: l.Token}, {MachineID: l.MachineID}} {
			if _, err := s.Renew(ctx, bad, time.Minute); !errors.Is(err, driver.ErrLost) {
				t.Errorf("Renew(%+v) = %v, want ErrLost", bad, err)
			}
			if err := s.Release(ctx, bad); err != nil {
				t.Errorf("Release(%+v) = %v, want nil", bad, err)
			}
		}
		if !held(t, c, tg.mode, name, l.MachineID) {
			t.Fatal("holder's lease is gone")
		}
	})
}

func TestTTLRoundsUp(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		s := strategy(t, c, tg.mode, namespace(t, c), false)
		ctx := ctxT(t)
		l, err := s.Acquire(ctx, 1500*time.Microsecond+time.Minute)
		if err != nil {
			t.Fatalf("Acquire: %v", err)
		}
		if want := time.Minute + 2*time.Millisecond; l.TTL != want {
			t.Fatalf("TTL = %v, want %v (rounded up to ms)", l.TTL, want)
		}
		for _, d := range []time.Duration{0, -time.Second} {
			if _, err := s.Acquire(ctx, d); !errors.Is(err, driver.ErrConfig) {
				t.Errorf("Acquire(%v) = %v, want ErrConfig", d, err)
			}
			if _, err := s.Renew(ctx, l, d); !errors.Is(err, driver.ErrConfig) {
				t.Errorf("Renew(%v) = %v, want ErrConfig", d, err)
			}
		}
	})
}
