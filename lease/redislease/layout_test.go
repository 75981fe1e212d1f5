package redislease_test

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease/internal/leasekit"
	"github.com/once-go/once/lease/redislease"
)

// pttl returns the server's remaining TTL in ms of ID id's lease.
func pttl(t *testing.T, c *redis.Client, mode redislease.Mode, name string, id int) int64 {
	t.Helper()
	ctx := ctxT(t)
	if mode == redislease.ModeKey {
		return c.PTTL(ctx, idKey(name, id)).Val().Milliseconds()
	}
	v, err := c.Do(ctx, "HPTTL", name, "FIELDS", 1, strconv.Itoa(id)).Int64Slice()
	if err != nil || len(v) != 1 {
		t.Fatalf("HPTTL: %v %v", v, err)
	}
	return v[0]
}

// value returns the token stored for ID id ("" when none).
func value(t *testing.T, c *redis.Client, mode redislease.Mode, name string, id int) string {
	t.Helper()
	ctx := ctxT(t)
	if mode == redislease.ModeKey {
		return c.Get(ctx, idKey(name, id)).Val()
	}
	return c.HGet(ctx, name, strconv.Itoa(id)).Val()
}

// checkToken checks a lease's token: 16 random bytes, base64url without
// padding, then "|" and the default holder (leasekit.Holder: host/pid).
func checkToken(t *testing.T, tok string) {
	t.Helper()
	rnd, holder, _ := strings.Cut(tok, "|")
	b, err := base64.RawURLEncoding.DecodeString(rnd)
	if len(rnd) != 22 || err != nil || len(b) != 16 {
		t.Fatalf("token %q does not start with 16 bytes base64url without padding (%v)", tok, err)
	}
	if want := leasekit.Holder(); holder != want {
		t.Fatalf("token %q records the holder %q, want %q", tok, holder, want)
	}
}

// TestHashLayout pins the Elixir-compatible hash layout exactly.
func TestHashLayout(t *testing.T) {
	forEach(t, hashTargets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		s := strategy(t, c, redislease.ModeHash, name, true)
		ctx := ctxT(t)
		l, err := s.Acquire(ctx, 90*time.Second)
		if err != nil {
			t.Fatalf("Acquire: %v", err)
		}
		checkToken(t, l.Token)
		id := strconv.Itoa(l.MachineID)
		tokField := "token." + id + "." + l.Token
		all, err := c.HGetAll(ctx, name).Result()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{id: l.Token, tokField: id}
		if len(all) != 2 || all[id] != want[id] || all[tokField] != want[tokField] {
			t.Fatalf("hash = %q, want exactly %q", all, want)
		}
		ttls, err := c.Do(ctx, "HPTTL", name, "FIELDS", 2, id, tokField).Int64Slice()
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range ttls {
			if p <= 0 || p > 90000 {
				t.Fatalf("HPTTL field %d = %d ms, want in (0, 90000]", i, p)
			}
		}
		if ttls[0]-ttls[1] > 5 || ttls[1]-ttls[0] > 5 {
			t.Fatalf("fields carry different TTLs %v, want one TTL", ttls)
		}
		if n := c.Exists(ctx, idKeys(name)...).Val(); n != 0 {
			t.Fatalf("hash mode created %d key-mode keys", n)
		}
		// Renewal rewrites both fields with the new TTL.
		if _, err := s.Renew(ctx, l, 10*time.Minute); err != nil {
			t.Fatal(err)
		}
		ttls, _ = c.Do(ctx, "HPTTL", name, "FIELDS", 2, id, tokField).Int64Slice()
		if len(ttls) != 2 {
			t.Fatalf("HPTTL after renew = %v", ttls)
		}
		for _, p := range ttls {
			if p <= 90000 {
				t.Fatalf("HPTTL after renew = %v, want > 90000", ttls)
			}
		}
		// Release shortens both fields to the hold (HSETEX PX 1000):
		// the layout stays, with one TTL of at most the hold.
		if err := s.Release(ctx, l); err != nil {
			t.Fatal(err)
		}
		if all = c.HGetAll(ctx, name).Val(); len(all) != 2 || all[id] != want[id] || all[tokField] != want[tokField] {
			t.Fatalf("hash after release = %q, want exactly %q", all, want)
		}
		ttls, _ = c.Do(ctx, "HPTTL", name, "FIELDS", 2, id, tokField).Int64Slice()
		if len(ttls) != 2 || ttls[0] <= 0 || ttls[0] > 1000 || ttls[1] <= 0 || ttls[1] > 1000 || ttls[0]-ttls[1] > 5 || ttls[1]-ttls[0] > 5 {
			t.Fatalf("HPTTL after release = %v, want one TTL in (0, 1000]", ttls)
		}
		// Without a hold, Release removes both fields (HDEL).
		del := strategyOpts(t, c, redislease.Options{Mode: redislease.ModeHash, Name: name, ReleaseHold: noHold})
		if err := del.Release(ctx, l); err != nil {
			t.Fatal(err)
		}
		if n := c.HLen(ctx, name).Val(); n != 0 {
			t.Fatalf("hash has %d fields after release, want 0", n)
		}
	})
}

// TestHashForeignFields: "token.*" and non-numeric fields are not IDs, and
// Acquire leaves them alone.
func TestHashForeignFields(t *testing.T) {
	forEach(t, hashTargets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		ctx := ctxT(t)
		c.HSet(ctx, name, "token.0.zzz", "0", "meta", "x", "9999", "y", "0001", "z")
		s := strategy(t, c, redislease.ModeHash, name, true)
		l, err := s.Acquire(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if l.MachineID != 0 {
			t.Fatalf("Acquire = ID %d, want 0 (foreign fields are not leases)", l.MachineID)
		}
		if n := c.HLen(ctx, name).Val(); n != 6 {
			t.Fatalf("hash has %d fields, want 6", n)
		}
	})
}

// TestKeyLayout pins the key-mode layout: {NAME}:<id> = token with PX.
func TestKeyLayout(t *testing.T) {
	forEach(t, keyTargets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		s := strategy(t, c, redislease.ModeKey, name, false)
		ctx := ctxT(t)
		l, err := s.Acquire(ctx, 90*time.Second)
		if err != nil {
			t.Fatalf("Acquire: %v", err)
		}
		checkToken(t, l.Token)
		if got := c.Get(ctx, idKey(name, l.MachineID)).Val(); got != l.Token {
			t.Fatalf("GET %s = %q, want the token", idKey(name, l.MachineID), got)
		}
		if p := c.PTTL(ctx, idKey(name, l.MachineID)).Val(); p <= 0 || p > 90*time.Second {
			t.Fatalf("PTTL = %v, want in (0, 90s]", p)
		}
		if n := c.Exists(ctx, idKeys(name)...).Val(); n != 1 {
			t.Fatalf("%d keys exist, want 1", n)
		}
		if n := c.Exists(ctx, name).Val(); n != 0 {
			t.Fatal("key mode created the hash-mode key")
		}
		// Release shortens the key to the hold (PEXPIRE 1000).
		if err := s.Release(ctx, l); err != nil {
			t.Fatal(err)
		}
		if got := c.Get(ctx, idKey(name, l.MachineID)).Val(); got != l.Token {
			t.Fatalf("GET after release = %q, want the token", got)
		}
		if p := c.PTTL(ctx, idKey(name, l.MachineID)).Val(); p <= 0 || p > time.Second {
			t.Fatalf("PTTL after release = %v, want in (0, 1s]", p)
		}
		// Without a hold, Release deletes it.
		del := strategyOpts(t, c, redislease.Options{Mode: redislease.ModeKey, Name: name, ReleaseHold: noHold})
		if err := del.Release(ctx, l); err != nil {
			t.Fatal(err)
		}
		if n := c.Exists(ctx, idKeys(name)...).Val(); n != 0 {
			t.Fatalf("%d keys exist after release, want 0", n)
		}
	})
}
