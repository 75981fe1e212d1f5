package redislease_test

import (
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
	"github.com/once-go/once/lease/redislease"
)

// TestList: List reports every held ID ascending, with the server's TTL,
// the holder each strategy recorded (Options.Holder, or host/pid) and a
// token that releases exactly that lease; a free ID is not listed, and a
// token whose lease was taken over releases nothing.
func TestList(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		ctx := ctxT(t)
		s := strategyOpts(t, c, redislease.Options{Mode: tg.mode, Name: name, LowestFirst: true})
		if slots, err := s.List(ctx); err != nil || len(slots) != 0 {
			t.Fatalf("List of an empty NAME = %v, %v", slots, err)
		}
		var held []driver.Lease
		for i, holder := range []string{"web-1/17", "", "pod \x00weird/9", "web-2/18"} {
			o := redislease.Options{Mode: tg.mode, Name: name, LowestFirst: true, Holder: holder}
			l, err := strategyOpts(t, c, o).Acquire(ctx, time.Duration(i+1)*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, l)
		}
		// Free ID 1 (without a hold) and take ID 5 directly: IDs 0, 2, 3, 5.
		del := strategyOpts(t, c, redislease.Options{Mode: tg.mode, Name: name, ReleaseHold: noHold})
		if err := del.Release(ctx, held[1]); err != nil {
			t.Fatal(err)
		}
		l5, err := s.Claim(ctx, 5, 10*time.Minute)
		if err != nil {
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
			{0, "web-1/17", held[0].Token, time.Minute},
			{2, "pod ?weird/9", held[2].Token, 3 * time.Minute},
			{3, "web-2/18", held[3].Token, 4 * time.Minute},
			{5, leasekit.Holder(), l5.Token, 10 * time.Minute},
		}
		if len(slots) != len(want) {
			t.Fatalf("List = %+v, want IDs 0, 2, 3, 5", slots)
		}
		for i, w := range want {
			g := slots[i]
			if g.MachineID != w.id || g.Holder != w.holder || g.Token != w.token || g.TTL <= w.ttl-5*time.Second || g.TTL > w.ttl {
				t.Errorf("slot %d = %+v; want ID %d, holder %q, token %q, TTL about %v", i, g, w.id, w.holder, w.token, w.ttl)
			}
		}
		// The listed token releases that lease (with the hold), and a stale
		// one nothing.
		if err := del.Release(ctx, driver.Lease{MachineID: slots[0].MachineID, Token: slots[0].Token}); err != nil {
			t.Fatal(err)
		}
		if held := value(t, c, tg.mode, name, 0); held != "" {
			t.Fatalf("ID 0 after releasing its listed token holds %q", held)
		}
		if err := s.Release(ctx, driver.Lease{MachineID: 2, Token: held[0].Token}); err != nil {
			t.Fatal(err)
		}
		if slots, _ := s.List(ctx); len(slots) != 3 || slots[0].MachineID != 2 || slots[0].Token != held[2].Token {
			t.Fatalf("after the releases List = %+v, want IDs 2, 3, 5 with ID 2 untouched", slots)
		}
	})
}

// TestElixirReplay replays the Elixir library's statements on a hash
// where this package holds leases whose values carry the holder
// ("<token>|<holder>"): its acquire (HKEYS, drop "token." and
// non-integer fields, HSETEX FNX of the lowest free ID) skips them and
// fails on them, its renew and release touch only its own lease, and ours
// keep working beside it. List shows the Elixir lease with no holder,
// and its listed token releases it.
func TestElixirReplay(t *testing.T) {
	forEach(t, hashTargets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		ctx := ctxT(t)
		s := strategyOpts(t, c, redislease.Options{Mode: redislease.ModeHash, Name: name, LowestFirst: true, Holder: "go-host/1"})
		g0, err := s.Acquire(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		g1, err := s.Acquire(ctx, time.Minute)
		if err != nil || g0.MachineID != 0 || g1.MachineID != 1 {
			t.Fatalf("Go leases: %d, %d, %v", g0.MachineID, g1.MachineID, err)
		}
		// Elixir: acquire takes the lowest free ID, 2; a claim of a Go ID fails.
		id, tok := elixirAcquire(ctx, t, c, name, 60_000)
		if id != 2 {
			t.Fatalf("Elixir acquire = ID %d, want 2", id)
		}
		if n, err := elixirSet(ctx, c, name, "FNX", 60_000, 0, leasekit.NewTokenString()); err != nil || n != 0 {
			t.Fatalf("Elixir FNX on the Go-held ID 0 = %d, %v; want 0", n, err)
		}
		// Elixir renew: its own lease, 1; ours untouched.
		if n, err := elixirSet(ctx, c, name, "FXX", 120_000, id, tok); err != nil || n != 1 {
			t.Fatalf("Elixir renew = %d, %v", n, err)
		}
		if _, err := s.Renew(ctx, g0, time.Minute); err != nil {
			t.Fatalf("Go renew beside the Elixir lease: %v", err)
		}
		slots, err := s.List(ctx)
		if err != nil || len(slots) != 3 {
			t.Fatalf("List = %+v, %v", slots, err)
		}
		if e := slots[2]; e.MachineID != 2 || e.Holder != "" || e.Token != tok || e.TTL <= time.Minute {
			t.Fatalf("Elixir slot = %+v; want ID 2, no holder, its token, TTL about 2m", e)
		}
		if slots[0].Holder != "go-host/1" || slots[1].Holder != "go-host/1" {
			t.Fatalf("Go slots = %+v", slots[:2])
		}
		// Elixir release (PX 0) deletes only its own two fields.
		if n, err := elixirSet(ctx, c, name, "FXX", 0, id, tok); err != nil || n != 1 {
			t.Fatalf("Elixir release = %d, %v", n, err)
		}
		all := c.HGetAll(ctx, name).Val()
		if len(all) != 4 || all["0"] != g0.Token || all["token.0."+g0.Token] != "0" || all["1"] != g1.Token {
			t.Fatalf("hash after the Elixir release = %q, want the two Go leases", all)
		}
		// A Go lease released with the hold still looks held to Elixir's
		// acquire, which takes ID 1's neighbour instead of ID 0.
		if err := s.Release(ctx, g0); err != nil {
			t.Fatal(err)
		}
		if id2, tok2 := elixirAcquire(ctx, t, c, name, 60_000); id2 != 2 {
			t.Fatalf("Elixir acquire during the Go hold = ID %d, want 2", id2)
		} else if err := s.Release(ctx, driver.Lease{MachineID: 2, Token: tok2}); err != nil {
			t.Fatal(err)
		}
		// Our release of the Elixir lease through its listed token held it
		// the same way (both fields, the hold's TTL).
		if p := pttl(t, c, redislease.ModeHash, name, 2); p <= 0 || p > 1000 {
			t.Fatalf("released Elixir lease has %d ms left, want the 1s hold", p)
		}
		if v := c.HGet(ctx, name, "token.2."+c.HGet(ctx, name, "2").Val()).Val(); v != "2" {
			t.Fatalf("Elixir lease's token field = %q after our release", v)
		}
	})
}
